package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/suite"
)

// Shard selects one part of a run's vectors, so that one run can be split
// over the jobs of a CI matrix and merged back ([Merge]).
type Shard struct {
	// Index is the shard, from 1 to Count.
	Index int
	// Count is the number of shards (at least 1).
	Count int
}

// String renders the shard as "i/n", the form of --shard.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard reads "i/n" (1 <= i <= n): the form of --shard. Errors: USAGE.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, kiterr.New(kiterr.Usage, "shard %q: want i/n with 1 <= i <= n (e.g. 2/3)", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// shardVectors returns the vectors of shard s of vs (vs in id order): the
// vectors at positions k with k mod Count == Index-1, so shards differ in
// size by at most one vector and the split depends only on the ids.
// Errors: USAGE when s is not a shard (see [ParseShard]) or names more
// shards than there are vectors (a shard would be empty).
func shardVectors(vs []suite.Ref, s Shard) ([]suite.Ref, *ShardInfo, error) {
	if s.Count < 1 || s.Index < 1 || s.Index > s.Count {
		return nil, nil, kiterr.New(kiterr.Usage, "shard %s: want i/n with 1 <= i <= n", s)
	}
	if s.Count > len(vs) {
		return nil, nil, kiterr.New(kiterr.Usage, "shard %s: only %d vectors are selected, so shard count %d would leave a shard empty", s, len(vs), s.Count)
	}
	ids := make([]string, len(vs))
	var out []suite.Ref
	for k, v := range vs {
		ids[k] = v.ID
		if k%s.Count == s.Index-1 {
			out = append(out, v)
		}
	}
	return out, &ShardInfo{Index: s.Index, Count: s.Count, Selected: len(vs), Selection: selectionDigest(ids)}, nil
}

// selectionDigest is the Selection of ids (already in id order).
func selectionDigest(ids []string) string {
	h := sha256.New()
	for _, id := range ids {
		h.Write([]byte(id))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
