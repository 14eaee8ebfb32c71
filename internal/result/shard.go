package result

// ShardInfo is the shard metadata of a report made by one shard of a run
// (Report.Shard): what [Merge] checks before it combines shard reports.
type ShardInfo struct {
	// Index is the shard, from 1 to Count.
	Index int `json:"index"`
	// Count is the number of shards the run was split into.
	Count int `json:"count"`
	// Selected is the number of vectors the run selected (by version, role
	// and --filter) before they were split into shards.
	Selected int `json:"selected"`
	// Selection is "sha256:" and the lowercase hex SHA-256 of the ids of
	// those vectors in id order, each followed by LF: shards of the same
	// selection have the same Selection.
	Selection string `json:"selection"`
}
