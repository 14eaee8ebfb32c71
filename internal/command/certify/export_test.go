package certify

// ParseIsolateUser exposes parseIsolateUser to the tests.
var ParseIsolateUser = parseIsolateUser
