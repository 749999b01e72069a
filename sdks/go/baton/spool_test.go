package baton

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// One live process per spool file: the default file moves to .2, .3, … while held; an explicit
// one held elsewhere stops the start; a dead process's lock is taken over; close releases it.
func TestASpoolFileHasOneOwner(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spool-demo.jsonl")
	first, _, err := openSpool(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if pid, _ := os.ReadFile(path + ".lock"); string(pid) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock holds %q", pid)
	}
	second, _, err := openSpool(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSuffix(path, ".jsonl") + ".2.jsonl"; second.path != want {
		t.Errorf("second spool %s, want %s", second.path, want)
	}
	if _, _, err := openSpool(path, false); err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Errorf("an explicit held file: %v", err)
	}
	first.close()
	second.close()
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock left after close: %v", err)
	}
	// A lock whose process is gone.
	if err := os.WriteFile(path+".lock", []byte("999999999"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, _, err := openSpool(path, false)
	if err != nil {
		t.Fatalf("a dead process's lock: %v", err)
	}
	again.close()
}
