package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/result"
	"github.com/conform-kit/conform/internal/suite"
)

// Conformance classes (docs/running.md "Conformance classes"): which
// classes of the suite version and role a run judges, and the discover
// vectors whose frames, with the preflight's, the classes' derive
// predicates and the vectors' requires are checked against.

// checkClaims refuses a claim that names no class of any version and
// role of the suite: CLAIM_UNKNOWN. A claim may name a class of another
// role or version (one profile of an implementation that plays several
// roles claims the classes of each): the run judges only the claims that
// name classes of its version and role.
func (p *plan) checkClaims() error {
	var names []string
	for _, ver := range p.cfg.Suite.Manifest.Versions {
		for _, r := range ver.Roles {
			for _, c := range ver.RoleClasses(r.Name) {
				if !slices.Contains(names, c.Name) {
					names = append(names, c.Name)
				}
			}
		}
	}
	for _, claim := range p.cfg.Claims {
		if !slices.Contains(names, claim) {
			return kiterr.New(kiterr.ClaimUnknown, "claim %q names no conformance class of suite %q (%s)", claim, p.cfg.Suite.Manifest.Name, strings.Join(names, ", "))
		}
	}
	return nil
}

// discovers reports whether the run keeps the frames the IUT writes in
// vector id: the version's preflight vector and its discover vectors.
func (p *plan) discovers(id string) bool {
	return id == p.ver.Preflight || slices.Contains(p.ver.Discover, id)
}

// discoverNote names the version's discover vectors in a requires message
// ("" when it has none).
func discoverNote(ver *suite.Version) string {
	if len(ver.Discover) == 0 {
		return ""
	}
	return " or its discover vectors (" + strings.Join(ver.Discover, ", ") + ")"
}

// discoverFrames runs the version's discover vectors of the role, in
// order, each only when its requires hold for the frames so far, and adds
// the frames the IUT wrote in each to p.preflightFrames. Their results are
// not kept here: they run again as ordinary vectors. A vector that does
// not load is left out (the run reports it as a problem). Errors: those
// of the session (IUT_START).
func (p *plan) discoverFrames(ctx context.Context) error {
	for _, id := range p.ver.Discover {
		i := slices.IndexFunc(p.sessions, func(r suite.Ref) bool { return r.ID == id })
		if i < 0 || ctx.Err() != nil {
			continue
		}
		l, err := p.load(p.sessions[i])
		if err != nil || p.unmet(l.v) != "" {
			continue
		}
		l.keepRaw = true
		out, err := p.session(ctx, l)
		if err != nil {
			return err
		}
		p.preflightFrames = append(p.preflightFrames, out.raw...)
	}
	return nil
}

// judge decides which classes the run judges (p.judged) from the claims,
// or, when there are none, from the classes' derive predicates over the
// preflight and discover frames; always-judged classes are judged in
// both cases, and a judged class judges the classes it requires. It
// returns the classes in suite order for the report and, unless the
// preflight failed (negotiated is false), a CLAIM_CONTRADICTED finding
// for each claimed class whose derive predicates do not hold.
func (p *plan) judge(negotiated bool) ([]ClassResult, []Finding) {
	byName := map[string]suite.Class{}
	for _, c := range p.classes {
		byName[c.Name] = c
	}
	how := map[string]string{}
	var add func(name, h string)
	add = func(name, h string) {
		if _, ok := how[name]; ok {
			return
		}
		how[name] = h
		for _, r := range byName[name].Requires {
			add(r, h)
		}
	}
	for _, c := range p.classes {
		if c.Always {
			add(c.Name, result.HowAlways)
		}
	}
	if p.cfg.Claims != nil {
		for _, n := range p.cfg.Claims {
			if _, ours := byName[n]; ours {
				add(n, result.HowClaimed)
			}
		}
	} else {
		for _, c := range p.classes {
			if len(c.Derive) > 0 && p.unmetOf(c.Derive) == "" {
				add(c.Name, result.HowDerived)
			}
		}
	}
	p.judged = map[string]bool{}
	var out []ClassResult
	var findings []Finding
	for _, c := range p.classes {
		h, judged := how[c.Name]
		if !judged {
			h = result.HowNotClaimed
		}
		p.judged[c.Name] = judged
		cr := ClassResult{Name: c.Name, Title: c.Title, Description: c.Description, Source: c.Source, URL: c.URL, Judged: judged, How: h}
		if h == result.HowClaimed && negotiated && len(c.Derive) > 0 {
			if why := p.unmetOf(c.Derive); why != "" {
				cr.Contradicted = true
				findings = append(findings, Finding{Code: FindingClaimContradicted, Status: Fail,
					Message: fmt.Sprintf("class %q is claimed, but what the IUT declared contradicts it: %s", c.Name, strings.TrimPrefix(why, "not run: "))})
			}
		}
		out = append(out, cr)
	}
	return out, findings
}

// setClasses names each result's class (from the role's vectors) and
// fills the report's claims, classes and report-level findings.
func (p *plan) setClasses(rep *Report, classes []ClassResult, findings []Finding) {
	byID := make(map[string]string, len(p.sessions))
	for _, v := range p.sessions {
		byID[v.ID] = v.Class
	}
	for i := range rep.Results {
		if rep.Results[i].Class == "" {
			rep.Results[i].Class = byID[rep.Results[i].ID]
		}
	}
	if rep.Preflight != nil && rep.Preflight.Class == "" {
		rep.Preflight.Class = byID[rep.Preflight.ID]
	}
	rep.Claims = slices.Clone(p.cfg.Claims)
	if len(p.vars) > 0 {
		rep.Vars = p.vars
	}
	rep.Classes = classes
	rep.Findings = append(rep.Findings, findings...)
}
