module github.com/conform-kit/conform

go 1.26.0

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/google/go-cmp v0.7.0
	github.com/gowebpki/jcs v1.0.2
	github.com/rogpeppe/go-internal v1.16.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/text v0.44.0
	gotest.tools/v3 v3.5.2
)

require (
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
