package main

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"unicode"
)

// datasetSeed seeds the rows (and the cluster centres the query vectors are
// drawn near), so every run loads the same table.
const datasetSeed = 42

// clusters is the number of cluster centres the embeddings gather around.
const clusters = 32

// vocabulary is the software-debugging word list the task texts and the
// query texts are drawn from.
var vocabulary = strings.Fields("fix crash oom memory leak timeout retry parquet csv etl pipeline " +
	"deadlock race null pointer panic index query slow cache miss auth token expired flaky test " +
	"docker build dependency upgrade migration schema rollback latency spike disk full")

// repos are the values of metadata->>'repo'; cluster c belongs to repos[c%len(repos)].
var repos = []string{"data-pipeline", "api-gateway", "web-frontend", "ml-training", "billing"}

// memoryTypes are the values of metadata->>'memory_type'; cluster c has memoryTypes[c%3].
var memoryTypes = []string{"episodic", "semantic", "procedural"}

// dataset makes the deterministic rows: tasks from a debugging vocabulary,
// JSONB metadata and unit-normalised clustered embeddings (fixed seed).
type dataset struct {
	rng     *rand.Rand
	dim     int
	centers [][]float32
}

// newDataset returns the row generator for dim-dimensional embeddings; its
// cluster centres are the first draws of the fixed seed, so they depend on
// dim only.
func newDataset(dim int) *dataset {
	d := &dataset{rng: rand.New(rand.NewSource(datasetSeed)), dim: dim}
	for c := 0; c < clusters; c++ {
		d.centers = append(d.centers, unitVector(d.rng, dim, nil, 1))
	}
	return d
}

// unitVector returns a unit vector of dim components drawn from rng: center
// plus Gaussian noise of the given scale, or a random direction when center
// is nil.
func unitVector(rng *rand.Rand, dim int, center []float32, noise float64) []float32 {
	v := make([]float32, dim)
	var norm float64
	for i := range v {
		x := rng.NormFloat64() * noise
		if center != nil {
			x += float64(center[i])
		}
		v[i] = float32(x)
		norm += x * x
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] = float32(float64(v[i]) / norm)
	}
	return v
}

// row returns the next row: a six-word task, its metadata as JSON text and
// an embedding near a random cluster centre.
func (d *dataset) row() (task, meta string, emb []float32) {
	words := make([]string, 6)
	for i := range words {
		words[i] = vocabulary[d.rng.Intn(len(vocabulary))]
	}
	c := d.rng.Intn(len(d.centers))
	meta = fmt.Sprintf(`{"repo": %q, "memory_type": %q}`, repos[c%len(repos)], memoryTypes[c%3])
	return strings.Join(words, " "), meta, unitVector(d.rng, d.dim, d.centers[c], 0.05)
}

// tokenize splits text the way SPEC §3.2 says BM25 does: lower-cased, split
// on anything that is not a letter or a digit.
func tokenize(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
