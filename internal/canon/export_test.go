package canon

// CanonicalReference is the reference path of Canonical (encoding/json's
// Marshal, then jcs.Transform), for benchmarks against the direct writer.
var CanonicalReference = canonicalReference
