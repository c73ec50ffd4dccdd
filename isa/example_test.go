package isa_test

import (
	"fmt"
	"strings"

	"ndma/isa"
)

// Decode a word and read fields by their spec names.
func ExampleDecode() {
	word := make([]byte, 64)
	copy(word, []byte{0xbd, 0x10}) // DMA_TRANSPOSE, inst_word_len 0x10
	word[60], word[61] = 16, 128   // tile_src_rows, tile_src_cols (field-tables §3.6)
	in, err := isa.Decode(isa.Cayman, word)
	if err != nil {
		panic(err)
	}
	rows, _ := in.Uint("tile_src_rows")
	cols, _ := in.Uint("tile_src_cols")
	fmt.Println(in.Def().Mnemonic(), in.Layout().Name, rows, cols)
	// Output: DMA_TRANSPOSE DMA_DIRECT2D_XPOSE 16 128
}

// Build a word field by field and encode it.
func ExampleEncode() {
	in := isa.New(isa.Cayman, isa.OpDMAMemcpy)
	in.MustSet("semaphore", 10).MustSet("sem_increment", 1)
	in.MustSet("src_num_elem[0]", 128).MustSet("src_step_elem[1]", -512)
	if err := in.SetUint("src_start_addr", isa.ImmAddr8(0x1_0000_0000)); err != nil {
		panic(err)
	}
	w, _ := isa.Encode(in)
	fmt.Printf("% x\n% x\n", w[:16], w[16:32])
	// Output:
	// b8 10 00 00 00 00 00 00 00 00 00 00 00 0a 01 00
	// 00 00 00 00 01 00 00 00 00 00 00 00 00 fe ff ff
}

// Walk a stream; a 0xd4 pseudo word carries the 0xda extension after it.
func ExampleDecoder() {
	stream := make([]byte, 3*64)
	stream[0], stream[64], stream[128] = 0xd4, 0xda, 0xb8
	d := isa.NewDecoder(isa.Cayman, stream)
	for d.Next() {
		in := d.Inst()
		_, ext := in.Ext()
		fmt.Printf("%#02x %s ext=%v\n", d.Offset(), in.Def().Mnemonic(), ext)
	}
	fmt.Println(d.Err())
	// Output:
	// 0x00 PSEUDO_DMA_DIRECT2D ext=true
	// 0x80 DMAMEMCPY ext=false
	// <nil>
}

// The JSON form (docs/json.md) of a word.
func ExampleInst_AppendJSON() {
	in := isa.New(isa.Maverick, isa.OpTestEventSem)
	in.MustSet("mode", 4).MustSet("num_evt_sem", 1).MustSet("evt_sem_ids[0]", 7)
	js := string(in.AppendJSON(nil, 0))
	i := strings.Index(js, `"mode"`)
	fmt.Println(js[:86])
	fmt.Println(js[i : i+78])
	// Output:
	// {"offset":0,"opcode":180,"mnemonic":"TEST_EVENT_SEM","struct":"CTRL_TEST_ES","fields":
	// "mode":"COND_UPDATE_SEM","update_type":"NONE","repeat_count":0,"num_evt_sem":1
}

// The field map of an opcode, as `ndma describe` prints it.
func ExampleDescribe() {
	d, _ := isa.LookupName("DMA_MEMCPY") // the JSON key spelling of DMAMEMCPY
	for _, r := range isa.DescribeRows(d)[11:15] {
		fmt.Println(r.Byte, r.Field, r.Type, r.Prov)
	}
	// Output:
	// 13 semaphore u8 OBSERVED
	// 14 sem_increment u8 OBSERVED
	// 15 compute_op DGE_COMPUTE_OP(u8) OBSERVED
	// 16-23 src_start_addr ADDR8 OBSERVED
}

// Print an instruction as canonical assembly text, as `ndma disasm` does.
func ExampleInst_String() {
	in := isa.New(isa.Cayman, isa.OpDMAMemcpy)
	in.MustSet("semaphore", 3).MustSet("sem_increment", 1)
	in.MustSet("src_elem_size", 4).MustSet("src_num_elem[0]", 256)
	fmt.Println(in.String())
	// Output: dmamemcpy semaphore=3, sem_increment=1, src_num_elem=[256, 0], src_elem_size=4
}
