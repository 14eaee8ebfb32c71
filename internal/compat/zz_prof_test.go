package compat_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat"
)

func TestZZProf(t *testing.T) {
	o, n := os.Getenv("ZZ_OLD"), os.Getenv("ZZ_NEW")
	if o == "" {
		t.Skip()
	}
	ob, _ := os.ReadFile(o)
	nb, _ := os.ReadFile(n)
	ov, _ := canon.Parse(ob)
	nv, _ := canon.Parse(nb)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	start := time.Now()
	rep, err := compat.Compare(ctx, ov, nv, compat.Options{Direction: os.Getenv("ZZ_DIR")})
	t.Logf("%v err=%v breaking=%d additive=%d checks=%+v", time.Since(start), err, rep.Breaking, rep.Additive, rep.Checks)
}
