package trgmindex

import "testing"

// FuzzRead feeds arbitrary bytes to Read: it must fail or return an index
// whose every query stays within its rows, never panic.
func FuzzRead(f *testing.F) {
	b := NewBuilder()
	for _, s := range []string{"hello world", "", "Grüße", "abc"} {
		b.Add(s)
	}
	b.AddNull()
	enc, err := b.Build().Append(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(enc)
	f.Add(enc[:len(enc)/2])
	f.Add([]byte{0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := Read(data)
		if err != nil {
			return
		}
		for _, k := range ix.keys {
			c := ix.Candidates([]Key{k, ix.keys[0]})
			if !c.IsEmpty() && int(c.Maximum()) >= ix.Rows() {
				t.Fatalf("candidate %d beyond %d rows", c.Maximum(), ix.Rows())
			}
		}
	})
}
