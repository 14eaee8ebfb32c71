package attest

import "github.com/conform-kit/conform/internal/result"

// classDescriptors are the configuration's descriptors of the classes rep
// judged, in suite order: each by its name, its specification section's
// URL as uri (when the suite gives one), the SHA-256 of the report's class
// result in RFC 8785 form, and annotations with how it came to be judged
// and its counts (passed, failed, xfail, skipped, required and
// recommended passed of total).
func classDescriptors(rep *result.Report) ([]ResourceDescriptor, error) {
	var out []ResourceDescriptor
	for _, c := range rep.Classes {
		if !c.Judged {
			continue
		}
		d, err := digestOf(c)
		if err != nil {
			return nil, err
		}
		out = append(out, ResourceDescriptor{Name: c.Name, URI: c.URL, Digest: d, Annotations: map[string]any{
			"kind": KindClass, "how": c.How, "passed": c.Passed, "failed": c.Failed, "xfail": c.XFail, "skipped": c.Skipped,
			"required":    map[string]any{"total": c.Required.Total, "passed": c.Required.Passed},
			"recommended": map[string]any{"total": c.Recommended.Total, "passed": c.Recommended.Passed},
		}})
	}
	return out, nil
}

// suiteClasses are the suite descriptor's class annotations: the classes
// claimed (as given), and those not judged with how many vectors each
// left unrun, so that what a statement does not certify is in it too.
func suiteClasses(rep *result.Report, ann map[string]any) {
	if len(rep.Claims) > 0 {
		ann["claims"] = rep.Claims
	}
	var not []string
	for _, c := range rep.Classes {
		if !c.Judged {
			not = append(not, c.Name)
		}
	}
	if len(not) > 0 {
		ann["notJudged"] = not
	}
}
