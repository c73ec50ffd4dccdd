// Command libndma is ndma as a C shared library for Python's ndma package
// (python/): built with
//
//	go build -buildmode=c-shared -o python/ndma/libndma.so ./cmd/libndma
//
// (python/build.py does it), loaded with ctypes. Its whole C surface is
// ndma_call — one generic dispatch into internal/pybridge, whose entry
// points are named by string, take JSON arguments and raw buffers by
// pointer and answer JSON and a byte blob — and ndma_free. A new layer adds
// entry points in Go (pybridge.Register), never C symbols. As a program it
// only lists the entry points.
package main

/*
#include <stdlib.h>
*/
import "C"

import (
	"fmt"
	"runtime/debug"
	"unsafe"

	"ndma/internal/pybridge"
)

// ndma_call runs the entry point name with args (argsLen bytes of JSON)
// and n buffers (bufs[i], lens[i] bytes: the caller's memory, read or
// filled during the call only). It returns the JSON answer (malloc'd,
// *answerLen bytes) and sets *blob, *blobLen to a malloc'd byte result or
// NULL, 0; the caller frees both with ndma_free. No panic leaves it.
//
//export ndma_call
func ndma_call(name *C.char, args *C.char, argsLen C.size_t, bufs *unsafe.Pointer, lens *C.size_t, n C.int,
	answerLen *C.size_t, blob *unsafe.Pointer, blobLen *C.size_t) (answer unsafe.Pointer) {
	*blob, *blobLen = nil, 0
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf(`{"error":{"kind":"panic","message":%q,"stack":%q}}`,
				fmt.Sprint("internal error (a bug in ndma; please report it): ", p), string(debug.Stack()))
			answer, *answerLen = C.CBytes([]byte(msg)), C.size_t(len(msg))
		}
	}()
	var in [][]byte
	if n > 0 {
		ptrs := unsafe.Slice(bufs, int(n))
		ls := unsafe.Slice(lens, int(n))
		in = make([][]byte, n)
		for i := range in {
			if ptrs[i] != nil && ls[i] > 0 {
				in[i] = unsafe.Slice((*byte)(ptrs[i]), int(ls[i]))
			} else {
				in[i] = []byte{}
			}
		}
	}
	var a []byte
	if args != nil && argsLen > 0 {
		a = unsafe.Slice((*byte)(unsafe.Pointer(args)), int(argsLen))
	}
	out, b := pybridge.Dispatch(C.GoString(name), a, in)
	if len(b) > 0 {
		*blob, *blobLen = C.CBytes(b), C.size_t(len(b))
	}
	*answerLen = C.size_t(len(out))
	return C.CBytes(out)
}

// ndma_free frees what ndma_call returned.
//
//export ndma_free
func ndma_free(p unsafe.Pointer) { C.free(p) }

func main() {
	for _, n := range pybridge.Names() {
		fmt.Println(n)
	}
}
