package forgecore

// Unexported pieces: the ABI check and the JSON the binding writes for the core.

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
)

func TestLinkedLibrarySpeaksTheBindingsABI(t *testing.T) {
	if libraryABIVersion() != ABIVersion || headerABIVersion != ABIVersion {
		t.Fatalf("library %d, header %d, binding %d", libraryABIVersion(), headerABIVersion, ABIVersion)
	}
	if err := checkABI(ABIVersion, ABIVersion, ABIVersion); err != nil {
		t.Fatal(err)
	}
}

func TestAnotherABIVersionIsRefused(t *testing.T) {
	for _, versions := range [][2]uint32{{ABIVersion + 1, ABIVersion}, {ABIVersion, ABIVersion + 1}, {0, ABIVersion}} {
		err := checkABI(versions[0], versions[1], ABIVersion)
		if !errors.Is(err, ErrABIMismatch) {
			t.Fatalf("library %d, header %d: %v", versions[0], versions[1], err)
		}
	}
}

func TestHeadersJSON(t *testing.T) {
	header := http.Header{
		"B":       {"2", "two"},
		"A":       {"quote \" backslash \\ tab \t nul \x00 del \x7f"},
		"Unicode": {"ünï ✓ 役割"},
		"Broken":  {"\xff\xfeok\xc3"},
	}
	text := appendHeaders(nil, header)
	var pairs [][2]string
	if err := json.Unmarshal(text, &pairs); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	want := [][2]string{
		{"A", "quote \" backslash \\ tab \t nul \x00 del \x7f"},
		{"B", "2"}, {"B", "two"},
		{"Broken", "\ufffd\ufffdok\ufffd"},
		{"Unicode", "ünï ✓ 役割"},
	}
	if len(pairs) != len(want) {
		t.Fatalf("%q", pairs)
	}
	for i := range want {
		if pairs[i] != want[i] {
			t.Fatalf("pair %d: %q, want %q", i, pairs[i], want[i])
		}
	}
	if string(appendHeaders(nil, nil)) != "[]" {
		t.Fatal("no headers")
	}
}
