package cli

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"ndma/isa"
)

func enumsMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestEnumsJSON(t *testing.T) {
	code, out, errs := enumsMain(t, "enums", "--json")
	if code != exitOK {
		t.Fatalf("ndma enums --json: exit %d: %s", code, errs)
	}
	var got []enumJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("enums --json is not JSON: %v", err)
	}
	if len(got) != len(isa.Enums()) {
		t.Fatalf("%d enums, want isa.Enums()'s %d", len(got), len(isa.Enums()))
	}
	var wait *enumJSON
	for i := range got {
		if len(got[i].Values) == 0 {
			t.Errorf("%s has no values", got[i].Name)
		}
		if got[i].Name == "WAIT_MODE" {
			wait = &got[i]
		}
	}
	if wait == nil {
		t.Fatal("no WAIT_MODE")
	}
	byCode := map[int]enumValueJSON{}
	for _, v := range wait.Values {
		byCode[v.Code] = v
	}
	// 000 §3b: "EQ/LT/LE/GT/GE_IMM=0x1..0x5" — OBSERVED; 0xfe only field-tables gives.
	if v := byCode[0x02]; v.Name != "WAIT_FOR_SEM_LT_IMM" || v.Prov != "OBSERVED" || len(v.Gens) != 5 {
		t.Errorf("WAIT_MODE 0x02 = %+v, want WAIT_FOR_SEM_LT_IMM OBSERVED on all five generations", v)
	}
	if v := byCode[0xfe]; v.Name != "UNORDERED" || v.Prov != "CARRIED" || !slices.Equal(v.Gens, []string{"v5"}) || v.Note == "" {
		t.Errorf("WAIT_MODE 0xfe = %+v, want UNORDERED CARRIED v5 with its note", v)
	}
	if v := byCode[0x06]; v.Prov != "INFERRED" || slices.Contains(v.Gens, "v5") {
		t.Errorf("WAIT_MODE 0x06 = %+v, want INFERRED, not on v5", v)
	}
}

func TestEnumsOne(t *testing.T) {
	for _, name := range []string{"WAIT_MODE", "wait_mode", "WaitMode"} {
		code, out, errs := enumsMain(t, "enums", name)
		if code != exitOK {
			t.Fatalf("ndma enums %s: exit %d: %s", name, code, errs)
		}
		if !strings.HasPrefix(out, "WAIT_MODE (OBSERVED, 22 values)\n") || strings.Contains(out, "DTYPE") {
			t.Errorf("ndma enums %s:\n%s", name, out)
		}
		if !regexp.MustCompile(`(?m)^  0x02 +WAIT_FOR_SEM_LT_IMM +all +OBSERVED$`).MatchString(out) ||
			!regexp.MustCompile(`(?m)^  0xfe +UNORDERED +v5 +CARRIED +no wait, faster than NONE$`).MatchString(out) {
			t.Errorf("ndma enums %s: rows not as expected:\n%s", name, out)
		}
	}
	code, out, _ := enumsMain(t, "enums", "--json", "ccop")
	var got []enumJSON
	if code != exitOK || json.Unmarshal([]byte(out), &got) != nil || len(got) != 1 || got[0].Name != "CCOP" {
		t.Errorf("ndma enums --json ccop: exit %d, %d enums", code, len(got))
	}
	// --gen keeps the values the generation defines: no event waits on v5.
	code, out, _ = enumsMain(t, "enums", "--gen", "maverick", "WAIT_MODE")
	if code != exitOK || strings.Contains(out, "WAIT_FOR_EVT_06") || !strings.Contains(out, "UNORDERED") {
		t.Errorf("ndma enums --gen maverick WAIT_MODE: exit %d\n%s", code, out)
	}
	code, out, _ = enumsMain(t, "enums", "--gen", "sunda", "WAIT_MODE")
	if code != exitOK || !strings.Contains(out, "WAIT_FOR_EVT_06") || strings.Contains(out, "UNORDERED") {
		t.Errorf("ndma enums --gen sunda WAIT_MODE: exit %d\n%s", code, out)
	}
	// Every enum is listed, in isa.Enums() order.
	_, out, _ = enumsMain(t, "enums")
	for _, e := range isa.Enums() {
		if !strings.Contains(out, "\n"+e.Name+" (") && !strings.HasPrefix(out, e.Name+" (") {
			t.Errorf("ndma enums does not list %s", e.Name)
		}
	}
}

func TestEnumsUnknown(t *testing.T) {
	code, out, errs := enumsMain(t, "enums", "NO_SUCH")
	if code != exitUsage || out != "" {
		t.Errorf("ndma enums NO_SUCH: exit %d, stdout %q; want a usage error", code, out)
	}
	for _, n := range []string{`"NO_SUCH"`, "WAIT_MODE", "DTYPE", "CCOP", "ALU_OP"} {
		if !strings.Contains(errs, n) {
			t.Errorf("the error does not name %s: %s", n, errs)
		}
	}
	if code, _, _ := enumsMain(t, "enums", "DTYPE", "CCOP"); code != exitUsage {
		t.Errorf("two names: exit %d, want a usage error", code)
	}
}
