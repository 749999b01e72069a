package baton

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
}

func TestOptionsFromEnvNeedsOnlyTheTenantAndItsSecret(t *testing.T) {
	o, err := OptionsFromEnv(env(map[string]string{"BATON_TENANT": "acme", "BATON_EXECUTOR_SECRET": "s3cret"}))
	if err != nil {
		t.Fatal(err)
	}
	o, err = o.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.EngineURLs[0] != "http://127.0.0.1:8080" || o.App != "default" || o.Host != "127.0.0.1" || o.Port != 0 ||
		o.Concurrency != 16 || o.QueueLimit != 1000 || o.CallbackConcurrency != 32 || o.HeartbeatInterval != 3*time.Second ||
		o.RetryBase != 200*time.Millisecond || o.RetryMax != 30*time.Second || o.ShutdownGrace != 10*time.Second {
		t.Errorf("defaults: %+v", o)
	}
	// The Node SDK's default spool: ./.baton/spool-<app>.jsonl, numbered when another process holds it.
	if wd, _ := os.Getwd(); o.SpoolFile != filepath.Join(wd, ".baton", "spool-default.jsonl") || !o.DefaultSpool {
		t.Errorf("default spool %q (numbered %v)", o.SpoolFile, o.DefaultSpool)
	}
	// In code, the zero Options keep callbacks in memory.
	if o, _ := (Options{Tenant: "acme", Secret: "s", EngineURLs: []string{"http://e"}}).withDefaults(); o.SpoolFile != "" {
		t.Errorf("Options{} spools to %q", o.SpoolFile)
	}
}

func TestOptionsFromEnvReadsEveryVariable(t *testing.T) {
	vars := map[string]string{
		"BATON_TENANT": "acme", "BATON_EXECUTOR_SECRET": "s3cret", "BATON_ENGINE_URLS": " http://e1:1/ , https://e2 ",
		"BATON_EXECUTOR_APP": "billing", "BATON_EXECUTOR_HOST": "0.0.0.0", "BATON_EXECUTOR_PORT": "8123",
		"BATON_EXECUTOR_PUBLIC_URL": "http://billing.internal:8123", "BATON_EXECUTOR_CONCURRENCY": "16",
		"BATON_EXECUTOR_QUEUE_LIMIT": "0", "BATON_EXECUTOR_CALLBACK_CONCURRENCY": "8", "BATON_EXECUTOR_SPOOL": "/var/spool/b.jsonl",
		"BATON_EXECUTOR_HEARTBEAT_MS": "500", "BATON_EXECUTOR_SHUTDOWN_GRACE_MS": "0", "BATON_EXECUTOR_RETRY_BASE_MS": "50",
		"BATON_EXECUTOR_RETRY_MAX_MS": "900",
	}
	if len(vars) != len(EnvVariables) {
		t.Fatalf("this test sets %d variables, EnvVariables lists %d", len(vars), len(EnvVariables))
	}
	o, err := OptionsFromEnv(env(vars))
	if err == nil {
		o, err = o.withDefaults()
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(o.EngineURLs) != 2 || o.EngineURLs[0] != "http://e1:1" || o.EngineURLs[1] != "https://e2" || o.App != "billing" ||
		o.Host != "0.0.0.0" || o.Port != 8123 || o.PublicURL != "http://billing.internal:8123" || o.Concurrency != 16 ||
		o.QueueLimit != 0 || o.CallbackConcurrency != 8 || o.SpoolFile != "/var/spool/b.jsonl" || o.HeartbeatInterval != 500*time.Millisecond ||
		o.ShutdownGrace != 0 || o.RetryBase != 50*time.Millisecond || o.RetryMax != 900*time.Millisecond {
		t.Errorf("read: %+v", o)
	}
}

func TestOptionsFromEnvNamesTheVariableAndTheValue(t *testing.T) {
	base := map[string]string{"BATON_TENANT": "acme", "BATON_EXECUTOR_SECRET": "s3cret"}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for bk, bv := range base {
			if bk != k {
				m[bk] = bv
			}
		}
		return m
	}
	for _, c := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"BATON_EXECUTOR_SECRET": "s"}, "BATON_TENANT is required: tenant id the executor serves."},
		{with("BATON_EXECUTOR_SECRET", "  "), "BATON_EXECUTOR_SECRET is required: the tenant's executor secret (signs every request between engine and executor)."},
		{with("BATON_EXECUTOR_PORT", "eighty"), `BATON_EXECUTOR_PORT="eighty": must be a non-negative integer`},
		{with("BATON_EXECUTOR_CONCURRENCY", "-1"), `BATON_EXECUTOR_CONCURRENCY="-1": must be a non-negative integer`},
		{with("BATON_EXECUTOR_PUBLIC_URL", "billing:80"), `BATON_EXECUTOR_PUBLIC_URL="billing:80": must be an http(s) URL`},
		{with("BATON_ENGINE_URLS", "http://e1:1,ftp://e2"), `BATON_ENGINE_URLS="http://e1:1,ftp://e2": "ftp://e2" is not an http(s) URL (a comma-separated list of engine base URLs)`},
		{with("BATON_ENGINE_URLS", " , "), `BATON_ENGINE_URLS=",": must name at least one http(s) URL`},
	} {
		_, err := OptionsFromEnv(env(c.vars))
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}
