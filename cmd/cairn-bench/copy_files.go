package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// copyTaskWords is the number of vocabulary words in a COPY row's task
// text: about 200 bytes.
const copyTaskWords = 30

// writeCopyFiles writes rows of the dataset (id, a ~200-byte task, JSONB
// metadata, a dim-dimensional real[] embedding) into dir as COPY FROM
// data in the three formats: copy.csv, copy.txt and copy.bin (bench/copy.sh
// loads them into cairn and PostgreSQL). The floats print as PostgreSQL
// prints real: the shortest text that reads back exactly.
func writeCopyFiles(dir string, rows, dim int) error {
	names := []string{"copy.csv", "copy.txt", "copy.bin"}
	ws := make([]*bufio.Writer, len(names))
	fs := make([]*os.File, len(names))
	for i, name := range names {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		defer f.Close()
		fs[i], ws[i] = f, bufio.NewWriterSize(f, 1<<20)
	}
	csv, text, bin := ws[0], ws[1], ws[2]
	bin.WriteString(binarySignature)
	bin.Write(make([]byte, 8)) // flags and header extension length: 0
	d := newDataset(dim)
	var arr, u4 []byte
	for id := 1; id <= rows; id++ {
		_, meta, emb := d.row()
		words := make([]string, copyTaskWords)
		for i := range words {
			words[i] = vocabulary[d.rng.Intn(len(vocabulary))]
		}
		task := strings.Join(words, " ")
		arr = append(arr[:0], '{')
		for i, x := range emb {
			if i > 0 {
				arr = append(arr, ',')
			}
			arr = strconv.AppendFloat(arr, float64(x), 'g', -1, 32)
		}
		arr = append(arr, '}')
		fmt.Fprintf(text, "%d\t%s\t%s\t%s\n", id, task, meta, arr)
		fmt.Fprintf(csv, "%d,%s,\"%s\",\"%s\"\n", id, task, strings.ReplaceAll(meta, `"`, `""`), arr)

		u4 = binary.BigEndian.AppendUint16(u4[:0], 4)
		u4 = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(u4, 8), uint64(id))
		u4 = append(binary.BigEndian.AppendUint32(u4, uint32(len(task))), task...)
		u4 = append(append(binary.BigEndian.AppendUint32(u4, uint32(1+len(meta))), 1), meta...) // jsonb version 1
		u4 = binary.BigEndian.AppendUint32(u4, uint32(20+8*dim))
		for _, w := range []uint32{1, 0, 700, uint32(dim), 1} { // ndim, has nulls, float4, length, lower bound
			u4 = binary.BigEndian.AppendUint32(u4, w)
		}
		for _, x := range emb {
			u4 = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(u4, 4), math.Float32bits(x))
		}
		bin.Write(u4)
	}
	bin.Write([]byte{0xff, 0xff}) // the trailer
	for i, w := range ws {
		if err := w.Flush(); err != nil {
			return err
		}
		if err := fs[i].Close(); err != nil {
			return err
		}
	}
	return nil
}

// binarySignature starts COPY's binary format.
const binarySignature = "PGCOPY\n\377\r\n\x00"
