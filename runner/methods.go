package runner

import (
	"sync"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/schema"
	"github.com/conform-kit/conform/internal/suite"
)

// methodSchemas holds the reply-body schema of each method a version
// declares (envelope replyBody, docs/suite-format.md "The envelope"): a
// success reply to a request of method m must satisfy the subschema
// <schema>#<replyBody>/<m>, compiled with the version's discriminators.
//
// For a suite the user supplies (a [schema.NewSet]) every one is compiled
// by newMethodSchemas, so a schema that does not compile is
// SCHEMA_INVALID before any vector runs. The kit's embedded suite (a
// [schema.NewCheckedSet], whose files its tests compile) compiles each on
// first use instead: a one-vector run meets one or two methods of the
// eighteen control methods, and compiling all of them was about a tenth of
// its CPU (bench/README.md). Safe for concurrent use.
type methodSchemas struct {
	set  *schema.Set
	base string   // <schema><replyBody>/
	disc []string // the version's discriminators
	// byName has an entry per declared method; it is not changed after
	// newMethodSchemas, so lookups take no lock.
	byName map[string]*methodSchema
}

type methodSchema struct {
	once sync.Once
	sch  *schema.Schema
	err  error
}

// newMethodSchemas returns the reply-body schemas of ver's methods (nil
// when its envelope declares no replyBody). Errors: SUITE_NOT_FOUND or
// SCHEMA_INVALID reading the method names, and for a user's suite any
// compilation error (SCHEMA_INVALID).
func newMethodSchemas(s *Suite, ver *suite.Version) (*methodSchemas, error) {
	body := ver.Env().ReplyBody()
	if body == "" {
		return nil, nil
	}
	names, err := memberNamesIn(s, ver.Schema, body)
	if err != nil {
		return nil, err
	}
	m := &methodSchemas{set: s.Schemas, base: ver.Schema + body + "/", disc: ver.Env().Discriminators(), byName: make(map[string]*methodSchema, len(names))}
	for _, n := range names {
		m.byName[n] = &methodSchema{}
	}
	if !s.Schemas.Checked() {
		for _, n := range names {
			if _, err := m.get(n); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// get returns the reply-body schema of method, or nil when the version
// declares none for it (and for a nil m). The error is the compilation's
// (SCHEMA_INVALID), which for the embedded suite its tests rule out.
func (m *methodSchemas) get(method string) (*schema.Schema, error) {
	if m == nil {
		return nil, nil
	}
	e := m.byName[method]
	if e == nil {
		return nil, nil
	}
	e.once.Do(func() {
		sch, err := m.set.Compile(m.base + canon.EscapePointer(method))
		if err != nil {
			e.err = err
			return
		}
		e.sch = sch.WithDiscriminators(m.disc)
	})
	return e.sch, e.err
}

// names calls fn with every declared method name.
func (m *methodSchemas) names(fn func(string)) {
	if m == nil {
		return
	}
	for n := range m.byName {
		fn(n)
	}
}
