package types

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestTmpFloatCmp(t *testing.T) {
	for _, c := range []struct {
		file string
		bits int
	}{{"/tmp/f64out.txt", 64}, {"/tmp/f32out.txt", 32}} {
		f, _ := os.Open(c.file)
		sc := bufio.NewScanner(f)
		bad := 0
		n := 0
		for sc.Scan() {
			parts := strings.Split(sc.Text(), "\t")
			v, _ := strconv.ParseFloat(parts[0], c.bits)
			n++
			if got := string(AppendFloat(nil, v, c.bits)); got != parts[1] {
				bad++
				if bad < 15 {
					t.Logf("%d: %s: pg %s, we %s", c.bits, parts[0], parts[1], got)
				}
			}
		}
		t.Logf("%s: %d of %d differ", c.file, bad, n)
	}
}
