package vecindex

// Distance is the metric's exact distance from query q to v, as Search
// reports it: under Cosine q must be normalised already (v need not be).
// ok is false when v has another dimension, no direction (Cosine) or the
// distance is not a number.
func Distance(m Metric, q, v []float32) (float32, bool) { return exactDist(m, q, v) }
