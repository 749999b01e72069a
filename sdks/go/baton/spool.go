package baton

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// spool is an append-only JSONL file of final callbacks no engine has taken yet: a line
// {"put":callback} when one is made, {"done":"runId:attempt"} when an engine takes it. On start
// the puts without a done are replayed; the file is emptied whenever nothing is pending.
// `<file>.lock` holds the owner's pid: one live process per file.
type spool struct {
	mu   sync.Mutex
	path string
	file *os.File
}

type spoolLine struct {
	Put  *callback `json:"put,omitempty"`
	Done string    `json:"done,omitempty"`
}

// openSpool opens (or creates) the spool file and returns what a previous process left in it;
// numbered: if another live process holds path, <name>.2.jsonl, .3, … instead (the default file).
func openSpool(path string, numbered bool) (*spool, []*callback, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, fmt.Errorf("spool %s: %w", path, err)
	}
	candidates := []string{path}
	for i := 2; numbered && i <= 32; i++ {
		candidates = append(candidates, strings.TrimSuffix(path, ".jsonl")+"."+strconv.Itoa(i)+".jsonl")
	}
	for _, c := range candidates {
		ok, err := lockSpool(c)
		if err != nil {
			return nil, nil, fmt.Errorf("spool %s: %w", c, err)
		}
		if ok {
			s, replay, err := loadSpool(c)
			if err != nil {
				unlockSpool(c)
			}
			return s, replay, err
		}
	}
	return nil, nil, fmt.Errorf("callback spool %s is in use by another process; give each executor process its own spool file (BATON_EXECUTOR_SPOOL)", path)
}

func loadSpool(path string) (*spool, []*callback, error) {
	var replay []*callback
	if f, err := os.Open(path); err == nil {
		byKey := map[string]*callback{}
		var order []string
		scan := bufio.NewScanner(f)
		scan.Buffer(make([]byte, 64*1024), 16<<20)
		for scan.Scan() {
			var l spoolLine
			if json.Unmarshal(scan.Bytes(), &l) != nil {
				continue // a line cut by a crash
			}
			if l.Put != nil {
				k := runKey(l.Put.RunID, l.Put.Attempt)
				byKey[k], order = l.Put, append(order, k)
			} else if l.Done != "" {
				delete(byKey, l.Done)
			}
		}
		f.Close()
		for _, k := range order {
			if cb, ok := byKey[k]; ok {
				replay = append(replay, cb)
				delete(byKey, k)
			}
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("spool %s: %w", path, err)
	}
	s := &spool{path: path, file: f}
	for _, cb := range replay {
		if err := s.write(spoolLine{Put: cb}); err != nil {
			return nil, nil, fmt.Errorf("spool %s: %w", path, err)
		}
	}
	return s, replay, nil
}

func (s *spool) write(l spoolLine) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	_, err = s.file.Write(append(data, '\n'))
	return err
}

func (s *spool) put(cb *callback, warn func(string, ...any)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.write(spoolLine{Put: cb}); err != nil {
		warn("spool: %v (the callback is kept in memory only)", err)
	}
}

// done records a delivered callback; with nothing pending any more the file starts over.
func (s *spool) done(key string, pending int, warn func(string, ...any)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if pending == 0 {
		if err = s.file.Truncate(0); err == nil {
			_, err = s.file.Seek(0, 0)
		}
	} else {
		err = s.write(spoolLine{Done: key})
	}
	if err != nil {
		warn("spool: %v", err)
	}
}

func (s *spool) close() {
	_ = s.file.Close()
	unlockSpool(s.path)
}

// Spool files held by executors of this process (a lock with our own pid is not free for a second one).
var heldSpools = struct {
	sync.Mutex
	paths map[string]bool
}{paths: map[string]bool{}}

// lockSpool takes <path>.lock unless a live process other than this one holds it (a dead one's is taken over).
func lockSpool(path string) (bool, error) {
	heldSpools.Lock()
	defer heldSpools.Unlock()
	if heldSpools.paths[path] {
		return false, nil
	}
	me := strconv.Itoa(os.Getpid())
	f, err := os.OpenFile(path+".lock", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		holder, readErr := os.ReadFile(path + ".lock")
		if readErr != nil {
			return false, readErr
		}
		if pid, convErr := strconv.Atoi(strings.TrimSpace(string(holder))); convErr == nil && pid != os.Getpid() && alive(pid) {
			return false, nil
		}
		f, err = os.OpenFile(path+".lock", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	}
	if err != nil {
		return false, err
	}
	_, err = f.WriteString(me)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return false, err
	}
	heldSpools.paths[path] = true
	return true, nil
}

func unlockSpool(path string) {
	heldSpools.Lock()
	defer heldSpools.Unlock()
	delete(heldSpools.paths, path)
	_ = os.Remove(path + ".lock")
}

// alive: signal 0 reaches the process (EPERM: it exists, another user's). Where signals are not
// supported (Windows) a lock is taken as stale.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
