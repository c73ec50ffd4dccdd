// Command mknpy writes a .npy file of random float16 values in (-1, 1), of
// any size, streamed a few MiB at a time (for bench/neff_scale.sh: a 4 GiB
// input without 4 GiB of memory, and without NumPy).
//
//	go run ./bench/mknpy -shape 32768,65536 [-seed N] FILE.npy
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"ndma/internal/array"
)

func main() {
	shapeFlag := flag.String("shape", "", "the array's shape: comma-separated dimensions")
	seed := flag.Uint64("seed", 1, "the values' seed")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: mknpy -shape D0,D1,… [-seed N] FILE.npy")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *shapeFlag == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := write(flag.Arg(0), *shapeFlag, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "mknpy:", err)
		os.Exit(1)
	}
}

func write(path, shapeText string, seed uint64) error {
	var shape []int
	n := int64(1)
	for _, s := range strings.Split(shapeText, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || d < 0 {
			return fmt.Errorf("-shape %q: %q is not a dimension", shapeText, s)
		}
		if d > 0 && n > math.MaxInt64/2/int64(d) {
			return fmt.Errorf("-shape %q: too many elements", shapeText)
		}
		shape, n = append(shape, d), n*int64(d)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 4<<20)
	if err := array.WriteHeader(w, "<f2", shape); err != nil {
		f.Close()
		return err
	}
	buf := make([]byte, 4<<20)
	x := seed*0x9e3779b97f4a7c15 | 1
	for left := 2 * n; left > 0; {
		b := buf[:min(int64(len(buf)), left)]
		g := buf[:(len(b)+7)/8*8]        // whole steps, the last one's tail unwritten
		for i := 0; i < len(g); i += 8 { // xorshift64*: 4 values per step
			x ^= x >> 12
			x ^= x << 25
			x ^= x >> 27
			v := x * 0x2545f4914f6cdd1d
			for k := range 4 {
				h := uint16(v >> (16 * k))
				// sign, exponent 10..14 (|value| in [2^-5, 1)), 10 fraction bits
				bits := h&0x8000 | uint16(10+(h>>10&0x1f)%5)<<10 | h&0x3ff
				g[i+2*k], g[i+2*k+1] = byte(bits), byte(bits>>8)
			}
		}
		if _, err := w.Write(b); err != nil {
			f.Close()
			return err
		}
		left -= int64(len(b))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
