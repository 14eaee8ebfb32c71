package compare_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/normalize"
)

// framing is the envelope of the control suite's v1, the protocol these
// tests' frames are written in.
var framing = func() compare.Framing {
	e, err := envelope.Compile(envelope.Spec{
		Frames: []envelope.ClassSpec{
			{Name: "control_request", Kind: envelope.Request, When: []envelope.Predicate{{Path: "/type", Equals: []byte(`"control_request"`)}}, ID: "/request_id", Method: "/request/subtype"},
			{Name: "control_response", Kind: envelope.Reply, When: []envelope.Predicate{{Path: "/type", Equals: []byte(`"control_response"`)}}, ID: "/response/request_id"},
			{Name: "control_diagnostic", Kind: envelope.Other, When: []envelope.Predicate{{Path: "/type", Equals: []byte(`"control_diagnostic"`)}}, ID: "/request_id", Key: []string{"/code"}},
		},
		Discriminators: []string{"type", "subtype", "behavior"},
	})
	if err != nil {
		panic(err)
	}
	return e
}()

// testRules are rules in the shape of suite.json's v1 conformance block.
func testRules(t *testing.T, vector *compare.Spec) *compare.Rules {
	t.Helper()
	r, err := compare.Compile(&compare.Spec{
		UserData: []compare.Location{{Path: "/response/response/updatedInput", Reason: "echoed tool input"}},
		Optional: []compare.Location{{Path: "/response/pending_permission_requests", Reason: "2.1.2xx omit it"}, {Path: "/response/response/toolUseID", Reason: "hosts echo it"}},
		Text:     []normalize.Spec{{Path: "/response/error", Format: "string", Reason: "free text"}},
	}, vector)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// declaredNames is a Declared for the tests: the members named here are
// declared (at any depth); all others are not.
func declaredNames(names ...string) compare.Declared {
	return func(_ any, _ string, name string) bool {
		for _, n := range names {
			if n == name {
				return true
			}
		}
		return false
	}
}

func summary(frames ...string) string {
	return `{"frames":[` + strings.Join(frames, ",") + `],"vector":"v"}`
}

func reply(id, body string) string {
	return `{"response":{"request_id":"` + id + `","response":` + body + `,"subtype":"success"},"type":"control_response"}`
}

type brief struct {
	Frame, Pointer, Kind string
	Normative            bool
}

func TestDifferences(t *testing.T) {
	t.Parallel()
	initialize := `{"response":{"pending_permission_requests":[],"request_id":"req-1","response":{"a":1},"subtype":"success"},"type":"control_response"}`
	tests := []struct {
		name           string
		golden, actual string
		vector         *compare.Spec
		declared       compare.Declared
		want           []brief
	}{
		{name: "equal", golden: summary(reply("r", `{"a":1}`)), actual: summary(reply("r", `{"a":1}`))},
		{name: "optional member absent is allowed",
			golden: summary(initialize),
			actual: summary(`{"response":{"request_id":"req-1","response":{"a":1},"subtype":"success"},"type":"control_response"}`),
			want:   []brief{{`control_response "req-1"`, "/response/pending_permission_requests", compare.MemberAbsent, false}}},
		{name: "pinned by the vector, the optional member must be there",
			golden: summary(initialize),
			actual: summary(`{"response":{"request_id":"req-1","response":{"a":1},"subtype":"success"},"type":"control_response"}`),
			vector: &compare.Spec{Pin: []compare.Location{{Path: "/response/pending_permission_requests", Reason: "the point of the vector"}}},
			want:   []brief{{`control_response "req-1"`, "/response/pending_permission_requests", compare.MemberAbsent, true}}},
		{name: "a member the schema requires or the vector shows may not be absent",
			golden: summary(reply("r", `{"buildTime":"<rfc3339>","version":"<semver>"}`)),
			actual: summary(reply("r", `{"version":"<semver>"}`)),
			want:   []brief{{`control_response "r"`, "/response/response/buildTime", compare.MemberAbsent, true}}},
		{name: "undeclared member added to an open object is allowed",
			golden:   summary(reply("r", `{"model":"m"}`)),
			actual:   summary(reply("r", `{"model":"m","commitHash":"abc"}`)),
			declared: declaredNames("model", "interrupt"),
			want:     []brief{{`control_response "r"`, "/response/response/commitHash", compare.MemberAdded, false}}},
		{name: "declared member added changes meaning",
			golden:   summary(reply("r", `{"behavior":"deny","message":"no"}`)),
			actual:   summary(reply("r", `{"behavior":"deny","interrupt":true,"message":"no"}`)),
			declared: declaredNames("interrupt"),
			want:     []brief{{`control_response "r"`, "/response/response/interrupt", compare.MemberAdded, true}}},
		{name: "declared but optional member added is allowed",
			golden:   summary(reply("r", `{"behavior":"allow","updatedInput":{}}`)),
			actual:   summary(reply("r", `{"behavior":"allow","toolUseID":"toolu_1","updatedInput":{}}`)),
			declared: declaredNames("toolUseID"),
			want:     []brief{{`control_response "r"`, "/response/response/toolUseID", compare.MemberAdded, false}}},
		{name: "user data is compared exactly: a changed session_id",
			golden: summary(reply("r", `{"behavior":"allow","updatedInput":{"session_id":"1b4e28ba-2fa1-11d2-883f-0016d3cca427"}}`)),
			actual: summary(reply("r", `{"behavior":"allow","updatedInput":{"session_id":"6fa459ea-ee8a-3ca4-894e-db77e160355e"}}`)),
			want:   []brief{{`control_response "r"`, "/response/response/updatedInput/session_id", compare.ValueChanged, true}}},
		{name: "user data is compared exactly: an added member",
			golden:   summary(reply("r", `{"behavior":"allow","updatedInput":{"a":1}}`)),
			actual:   summary(reply("r", `{"behavior":"allow","updatedInput":{"a":1,"b":2}}`)),
			declared: declaredNames(),
			want:     []brief{{`control_response "r"`, "/response/response/updatedInput/b", compare.MemberAdded, true}}},
		{name: "user data absent altogether",
			golden:   summary(reply("r", `{"behavior":"allow","updatedInput":{}}`)),
			actual:   summary(reply("r", `{"behavior":"allow"}`)),
			declared: declaredNames(),
			want:     []brief{{`control_response "r"`, "/response/response/updatedInput", compare.MemberAbsent, true}}},
		{name: "free text in other words is allowed",
			golden: summary(`{"response":{"error":"No hook callback found for ID: hook_9","request_id":"r","subtype":"error"},"type":"control_response"}`),
			actual: summary(`{"response":{"error":"callback not found: hook_9","request_id":"r","subtype":"error"},"type":"control_response"}`),
			want:   []brief{{`control_response "r"`, "/response/error", compare.ValueChanged, false}}},
		{name: "free text must still be text",
			golden: summary(`{"response":{"error":"boom","request_id":"r","subtype":"error"},"type":"control_response"}`),
			actual: summary(`{"response":{"error":{"message":"boom"},"request_id":"r","subtype":"error"},"type":"control_response"}`),
			want:   []brief{{`control_response "r"`, "/response/error", compare.TextMismatch, true}}},
		{name: "another subtype is one difference for the whole object",
			golden: summary(reply("r", `{"a":1}`)),
			actual: summary(`{"response":{"error":"Unsupported","request_id":"r","subtype":"error"},"type":"control_response"}`),
			want:   []brief{{`control_response "r"`, "/response", compare.ValueChanged, true}}},
		{name: "arrays keep their length",
			golden: summary(reply("r", `{"still_queued":[]}`)),
			actual: summary(reply("r", `{"still_queued":["x"]}`)),
			want:   []brief{{`control_response "r"`, "/response/response/still_queued/0", compare.ItemAdded, true}}},
		{name: "a wrong type",
			golden: summary(reply("r", `{"still_queued":[]}`)),
			actual: summary(reply("r", `{"still_queued":"x"}`)),
			want:   []brief{{`control_response "r"`, "/response/response/still_queued", compare.ValueChanged, true}}},
		{name: "frames pair by request_id whatever their order",
			golden: summary(reply("a", `{"x":1}`), reply("b", `{"x":2}`)),
			actual: summary(reply("b", `{"x":2}`), reply("a", `{"x":3}`)),
			want:   []brief{{`control_response "a"`, "/response/response/x", compare.ValueChanged, true}}},
		{name: "a missing and an added frame",
			golden: summary(reply("a", `{}`)),
			actual: summary(reply("b", `{}`)),
			want:   []brief{{`control_response "a"`, "", compare.FrameAbsent, true}, {`control_response "b"`, "", compare.FrameAdded, true}}},
		{name: "a second reply to one id",
			golden: summary(reply("a", `{}`)),
			actual: summary(reply("a", `{}`), reply("a", `{"x":1}`)),
			want:   []brief{{`control_response "a" #2`, "", compare.FrameAdded, true}}},
		{name: "exit class",
			golden: `{"exit":"zero","frames":[],"vector":"v"}`,
			actual: `{"exit":"nonzero","frames":[],"vector":"v"}`,
			want:   []brief{{"", "/exit", compare.ExitChanged, true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ds, err := compare.Differences([]byte(tc.golden), []byte(tc.actual), testRules(t, tc.vector), tc.declared, framing)
			if err != nil {
				t.Fatal(err)
			}
			var got []brief
			for _, d := range ds {
				got = append(got, brief{d.Frame, d.Pointer, d.Kind, d.Normative})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("differences (-want +got):\n%s", diff)
			}
			// Exact parity: every difference is normative.
			exact, err := compare.Differences([]byte(tc.golden), []byte(tc.actual), nil, nil, framing)
			if err != nil {
				t.Fatal(err)
			}
			if len(exact) != len(compare.Normative(exact)) || (len(exact) == 0) != (tc.golden == tc.actual) {
				t.Errorf("exact comparison: %v", exact)
			}
		})
	}
}

func TestRenderShowsTheCause(t *testing.T) {
	t.Parallel()
	nfc, nfd := "r\u00e9q", "re\u0301q"
	ds, err := compare.Differences([]byte(summary(reply("r", `{"m":"`+nfc+`"}`))), []byte(summary(reply("r", `{"m":"`+nfd+`"}`))), nil, nil, framing)
	if err != nil || len(ds) != 1 {
		t.Fatalf("%v %v", ds, err)
	}
	got := compare.Render(ds[0])
	for _, want := range []string{`"r\u00e9q"`, `"re\u0301q"`, "NFC"} {
		if !strings.Contains(got, want) {
			t.Errorf("render lacks %q:\n%s", want, got)
		}
	}

	long := strings.Repeat("a", 500)
	ds, err = compare.Differences([]byte(summary(reply("r", `{"m":"`+long+`X tail"}`))), []byte(summary(reply("r", `{"m":"`+long+`Y tail"}`))), nil, nil, framing)
	if err != nil || len(ds) != 1 {
		t.Fatalf("%v %v", ds, err)
	}
	got = compare.Render(ds[0])
	if !strings.Contains(got, "X tail") || !strings.Contains(got, "Y tail") {
		t.Errorf("a long string is cut before it differs:\n%s", got)
	}
}
