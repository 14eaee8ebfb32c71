package compat

import "context"

// Work is what one Compare did (validator calls, prove calls computed,
// conjunctions expanded), for the cost tests.
type Work struct {
	Validations, Proofs, Expansions int
	Evaluations                     int64
}

// CompareWork is Compare with its work counts.
func CompareWork(ctx context.Context, old, new any, opt Options) (Report, Work, error) {
	rep, w, err := compare(ctx, old, new, opt)
	return rep, Work{w.validations, w.proofs, w.expansions, w.evaluations}, err
}
