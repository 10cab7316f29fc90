package types

import (
	"bufio"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestTmpFloatCmp(t *testing.T) {
	out, _ := os.Create("/tmp/floatcases.txt")
	defer out.Close()
	rng := rand.New(rand.NewSource(3))
	for _, c := range []struct {
		file string
		bits int
	}{{"/tmp/g64out.txt", 64}, {"/tmp/g32out.txt", 32}} {
		f, _ := os.Open(c.file)
		sc := bufio.NewScanner(f)
		bad, n, kept := 0, 0, 0
		for sc.Scan() {
			parts := strings.Split(sc.Text(), "\t")
			u, _ := strconv.ParseUint(parts[0], 10, 64)
			var v float64
			if c.bits == 32 {
				v = float64(math.Float32frombits(uint32(u)))
			} else {
				v = math.Float64frombits(u)
			}
			n++
			if got := string(AppendFloat(nil, v, c.bits)); got != parts[1] {
				bad++
				if bad < 15 {
					t.Logf("%d: %v: pg %s, we %s", c.bits, v, parts[1], got)
				}
			}
			goShort := strconv.FormatFloat(v, 'e', -1, c.bits)
			interesting := !strings.Contains(parts[1], strings.Split(goShort, "e")[0]) && !strings.Contains(goShort, "e+0") && !strings.Contains(goShort, "e-0")
			if interesting && kept < 600 || rng.Intn(1000) == 0 {
				kept++
				fmt.Fprintf(out, "\t{%d, 0x%x, %q},\n", c.bits, u, parts[1])
			}
		}
		t.Logf("%s: %d of %d differ", c.file, bad, n)
	}
}
