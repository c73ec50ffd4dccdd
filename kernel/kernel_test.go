package kernel_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"testing"

	"ndma/dtype"
	"ndma/internal/samples"
	"ndma/kernel"
)

// sample is a real NEFF of ../shared/neff-samples (or $NDMA_NEFF_SAMPLES).
func sample(name string) string {
	dir := os.Getenv("NDMA_NEFF_SAMPLES")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "neff-samples")
	}
	return filepath.Join(dir, name)
}

// Open a NEFF, run it with typed inputs, read a typed output: the
// generation is the file's (trn2), x and y are fp16 tensors given as
// float32 (rounded as a DMA cast rounds), output0 comes back widened.
func Example() {
	k, err := kernel.Open(sample("matmul_small.neff"))
	if err != nil {
		log.Fatal(err)
	}
	res, err := k.Run(context.Background(), kernel.In("x", make([]float32, 128*256)), kernel.In("y", make([]float32, 256*128)))
	if err != nil {
		log.Fatal(err)
	}
	out, err := kernel.Out[float32](res, "output0")
	fmt.Println(k.Gen(), len(out), err)
	// Output: CAYMAN 16384 <nil>
}

// The inputs arrive where the run reads them, in the tensor's own type or
// cast from float32; what does not fit the tensor is refused by name.
func TestKernelInputs(t *testing.T) {
	k, err := kernel.Open(samples.Path(t, "matmul_small.neff"))
	if err != nil {
		t.Fatal(err)
	}
	var in, out int
	for _, tn := range k.Tensors() {
		switch tn.Kind {
		case "input":
			in++
		case "output":
			out++
		}
		if tn.Name == "x" && (tn.DType != dtype.FP16 || len(tn.Shape) != 2 || tn.Shape[0] != 128 || tn.Shape[1] != 256) {
			t.Errorf("x: %v %v", tn.DType, tn.Shape)
		}
	}
	if in != 2 || out != 1 {
		t.Fatalf("%d inputs, %d outputs; want x, y and output0", in, out)
	}
	// x as fp16 bits and as float32 give the same device bytes: x is read
	// back after the run (an input variable's bytes stay in HBM)
	xs := make([]float32, 128*256)
	xh := make([]dtype.Float16, len(xs))
	for i := range xs {
		xs[i] = float32(i%97) / 8 // exact in fp16
		xh[i] = dtype.Float16(fp16Bits(xs[i]))
	}
	for _, x := range []kernel.Input{kernel.In("x", xs), kernel.In("x", xh)} {
		res, err := k.Run(context.Background(), x)
		if err != nil {
			t.Fatal(err)
		}
		got, err := kernel.Out[dtype.Float16](res, "x")
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != xh[i] {
				t.Fatalf("x[%d] = %#04x, want %#04x", i, uint16(got[i]), uint16(xh[i]))
			}
		}
		wide, err := kernel.Out[float32](res, "x")
		if err != nil || wide[5] != xs[5] {
			t.Fatalf("x as float32: %v, %v", wide[5], err)
		}
	}
	for _, bad := range []kernel.Input{
		kernel.In("x", make([]float32, 10)),            // too few elements
		kernel.In("x", make([]int32, 128*256)),         // not its type
		kernel.In("output0", make([]float32, 128*128)), // not an input
		kernel.In("z", make([]float32, 1)),             // no such variable
	} {
		if _, err := k.Run(context.Background(), bad); !errors.Is(err, kernel.ErrInput) {
			t.Errorf("bad input: err %v, want ErrInput", err)
		}
	}
	if _, err := k.Run(context.Background(), kernel.In("x", xs), kernel.In("x", xs)); !errors.Is(err, kernel.ErrInput) {
		t.Errorf("x twice: err %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := k.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled run: err %v", err)
	}
}

// fp16Bits is f's binary16 bits for an f exact in fp16, derived from its
// float32 bits by hand (sign, rebiased exponent, top 10 fraction bits).
func fp16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff == 0 {
		return uint16(b >> 16)
	}
	exp := int(b>>23&0xff) - 127 + 15
	return uint16(b>>16&0x8000) | uint16(exp)<<10 | uint16(b>>13&0x3ff)
}
