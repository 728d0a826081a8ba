package contract_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/contract"
)

var update = flag.Bool("update", false, "rewrite the generated schemas and TypeScript")

// golden compares got with the file at path, or writes it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./contract -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s is stale; run go test ./contract -update (-committed +generated):\n%s", path, diff)
	}
}

func TestSchemaGoldens(t *testing.T) {
	schemas, err := contract.Schemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range contract.SchemaNames {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(schemas[name]); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("..", "docs", "schema", name+".json"), b.Bytes())
	}
}

func TestTypeScriptGolden(t *testing.T) {
	ts, err := contract.TypeScript()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("..", "editors", "vscode", "src", "contract.ts"), []byte(ts))
}

func TestHunkVectors(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "docs", "schema", "hunk-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []struct {
			Name  string              `json:"name"`
			Spans []contract.LineSpan `json:"spans"`
			Hunks []contract.Hunk     `json:"hunks"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) < 5 {
		t.Fatalf("only %d hunk vectors", len(file.Vectors))
	}
	for _, v := range file.Vectors {
		got := contract.Hunks(v.Spans)
		if len(got) == 0 && len(v.Hunks) == 0 {
			continue
		}
		if diff := cmp.Diff(v.Hunks, got); diff != "" {
			t.Errorf("%s: hunks (-want +got):\n%s", v.Name, diff)
		}
	}
}

func TestAnnotationID(t *testing.T) {
	t.Parallel()
	id := contract.AnnotationID("main-1a2b", 3)
	if id != "agentls/main-1a2b/3" {
		t.Errorf("AnnotationID = %q", id)
	}
	if run, ok := contract.RunOfAnnotation(id); !ok || run != "main-1a2b" {
		t.Errorf("RunOfAnnotation(%q) = %q, %v", id, run, ok)
	}
	for _, bad := range []string{"agentls-1", "agentls/", "agentls//1", "agentls/main/x", "agentls/main/0", "other/main/1"} {
		if run, ok := contract.RunOfAnnotation(bad); ok {
			t.Errorf("RunOfAnnotation(%q) = %q, true; want false", bad, run)
		}
	}
}
