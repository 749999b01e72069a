package baton

import (
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Options of an Executor. OptionsFromEnv reads them from the BATON_* variables the Node SDK reads.
type Options struct {
	// Tenant the executor serves and its executor secret (signs every request both ways). Required.
	Tenant string
	Secret string
	// App name: tasks whose executor app is this run here. Letters, digits, `.`, `_`, `-`.
	App string
	// Engine base URLs for heartbeats and callbacks; all engines are equivalent. At least one.
	EngineURLs []string
	// Listen address (default 127.0.0.1:0, an ephemeral port) and the URL engines call (default: the bound URL).
	Host      string
	Port      int
	PublicURL string
	// Handlers running at once (default 4) and accepted runs waiting for a worker (negative:
	// the default 100; 0: none wait, OptionsFromEnv gives -1 when the variable is unset).
	Concurrency int
	QueueLimit  int
	// Callback requests in flight at once (default 32).
	CallbackConcurrency int
	// File where final callbacks wait until an engine takes them, replayed on start. "": memory
	// only, unless DefaultSpool. One live process per file (a `<file>.lock` holds its pid).
	SpoolFile string
	// With SpoolFile "": spool to ./.baton/spool-<App>.jsonl, or spool-<App>.2.jsonl, .3, … when
	// another live process holds it — what OptionsFromEnv sets when BATON_EXECUTOR_SPOOL is unset,
	// as the Node and Java SDKs do.
	DefaultSpool bool
	// Heartbeat period until an engine's ack sets it (default 3 s).
	HeartbeatInterval time.Duration
	// Callback retry backoff, exponential with jitter (defaults 200 ms, 30 s).
	RetryBase time.Duration
	RetryMax  time.Duration
	// On stop: running handlers get ShutdownGrace (negative: the default 10 s; 0: none) before they are aborted, then
	// pending callbacks get ShutdownFlush (default 5 s).
	ShutdownGrace time.Duration
	ShutdownFlush time.Duration
	// After an abort, how long a handler may take to return before ABORTED is reported without it (default 5 s).
	AbortGrace time.Duration
	// Interim callbacks (progress, log lines, alarms) of a run go out at most this often (default 1 s).
	ProgressInterval time.Duration
	// Timeout of one request to an engine (default 10 s).
	RequestTimeout time.Duration
	// A callback an engine has not answered within this also goes to the next engine, and that
	// engine is tried after the others for 5 s (again each time it hangs); its request goes on,
	// a late answer still counts, and it no longer holds one of the CallbackConcurrency slots.
	// One hanging engine (black-holed, frozen) must not keep finished runs running for
	// RequestTimeout. Default 1 s (the Node SDK's rerouteAfterMs).
	RerouteAfter time.Duration
	// Where the SDK reports its own trouble (default: stderr). Not the runs' logs.
	Logger *log.Logger
}

// EnvVariables lists the variables OptionsFromEnv reads (the Node SDK's EXECUTOR_ENV table).
var EnvVariables = []string{
	"BATON_TENANT", "BATON_EXECUTOR_SECRET", "BATON_ENGINE_URLS", "BATON_EXECUTOR_APP",
	"BATON_EXECUTOR_HOST", "BATON_EXECUTOR_PORT", "BATON_EXECUTOR_PUBLIC_URL",
	"BATON_EXECUTOR_CONCURRENCY", "BATON_EXECUTOR_QUEUE_LIMIT", "BATON_EXECUTOR_CALLBACK_CONCURRENCY",
	"BATON_EXECUTOR_SPOOL", "BATON_EXECUTOR_HEARTBEAT_MS", "BATON_EXECUTOR_SHUTDOWN_GRACE_MS",
	"BATON_EXECUTOR_RETRY_BASE_MS", "BATON_EXECUTOR_RETRY_MAX_MS",
}

// EnvError names the BATON_* variable that is missing or malformed, and its value.
type EnvError struct {
	Variable string
	Value    *string
	Reason   string
}

func (e *EnvError) Error() string {
	if e.Value == nil {
		return e.Variable + " " + e.Reason
	}
	return fmt.Sprintf("%s=%q: %s", e.Variable, *e.Value, e.Reason)
}

// OptionsFromEnv reads the options from environment variables (lookup is os.LookupEnv when nil):
// BATON_TENANT and BATON_EXECUTOR_SECRET are required; BATON_ENGINE_URLS defaults to
// http://127.0.0.1:8080 (`npm start`), BATON_EXECUTOR_APP to "default".
func OptionsFromEnv(lookup func(string) (string, bool)) (Options, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	get := func(name string) (string, bool) {
		v, ok := lookup(name)
		v = strings.TrimSpace(v)
		return v, ok && v != ""
	}
	var o Options
	var err error
	required := func(name, what string) string {
		v, ok := get(name)
		if !ok && err == nil {
			err = &EnvError{Variable: name, Reason: "is required: " + what}
		}
		return v
	}
	integer := func(name string) int {
		v, ok := get(name)
		if !ok {
			return -1
		}
		n, convErr := strconv.Atoi(v)
		if convErr != nil || !digits.MatchString(v) {
			if err == nil {
				err = &EnvError{Variable: name, Value: &v, Reason: "must be a non-negative integer"}
			}
			return -1
		}
		return n
	}
	ms := func(name string) time.Duration {
		if n := integer(name); n >= 0 {
			return time.Duration(n) * time.Millisecond
		}
		return -1
	}
	o.Tenant = required("BATON_TENANT", "tenant id the executor serves.")
	o.Secret = required("BATON_EXECUTOR_SECRET", "the tenant's executor secret (signs every request between engine and executor).")
	urls := "http://127.0.0.1:8080"
	if v, ok := get("BATON_ENGINE_URLS"); ok {
		urls = v
	}
	for _, u := range strings.Split(urls, ",") {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		if !isHTTPURL(u) && err == nil {
			err = &EnvError{Variable: "BATON_ENGINE_URLS", Value: &urls, Reason: fmt.Sprintf("%q is not an http(s) URL (a comma-separated list of engine base URLs)", u)}
		}
		o.EngineURLs = append(o.EngineURLs, u)
	}
	if len(o.EngineURLs) == 0 && err == nil {
		err = &EnvError{Variable: "BATON_ENGINE_URLS", Value: &urls, Reason: "must name at least one http(s) URL"}
	}
	o.App, _ = get("BATON_EXECUTOR_APP")
	o.Host, _ = get("BATON_EXECUTOR_HOST")
	o.Port = integer("BATON_EXECUTOR_PORT")
	if v, ok := get("BATON_EXECUTOR_PUBLIC_URL"); ok {
		if !isHTTPURL(v) && err == nil {
			err = &EnvError{Variable: "BATON_EXECUTOR_PUBLIC_URL", Value: &v, Reason: "must be an http(s) URL"}
		}
		o.PublicURL = v
	}
	o.Concurrency = integer("BATON_EXECUTOR_CONCURRENCY")
	o.QueueLimit = integer("BATON_EXECUTOR_QUEUE_LIMIT")
	o.CallbackConcurrency = integer("BATON_EXECUTOR_CALLBACK_CONCURRENCY")
	o.SpoolFile, _ = get("BATON_EXECUTOR_SPOOL")
	o.DefaultSpool = o.SpoolFile == ""
	o.HeartbeatInterval = ms("BATON_EXECUTOR_HEARTBEAT_MS")
	o.ShutdownGrace = ms("BATON_EXECUTOR_SHUTDOWN_GRACE_MS")
	o.RetryBase = ms("BATON_EXECUTOR_RETRY_BASE_MS")
	o.RetryMax = ms("BATON_EXECUTOR_RETRY_MAX_MS")
	return o, err
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

var digits = regexp.MustCompile(`^\d+$`)

var appName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// withDefaults checks the options and fills in the defaults (negative or zero: the default,
// but for Port, QueueLimit and ShutdownGrace, where 0 means 0 and -1 the default).
func (o Options) withDefaults() (Options, error) {
	if strings.TrimSpace(o.Tenant) == "" || strings.TrimSpace(o.Secret) == "" {
		return o, fmt.Errorf("executor options: Tenant and Secret are required")
	}
	if o.App == "" {
		o.App = "default"
	}
	if !appName.MatchString(o.App) {
		return o, fmt.Errorf("executor options: app %q may only contain letters, digits, \".\", \"_\" and \"-\"", o.App)
	}
	if len(o.EngineURLs) == 0 {
		return o, fmt.Errorf("executor options: EngineURLs is required (at least one engine base URL)")
	}
	seen := map[string]bool{}
	var urls []string
	for i, u := range o.EngineURLs {
		if !isHTTPURL(u) {
			return o, fmt.Errorf("executor options: EngineURLs[%d]: %q is not an http(s) URL", i, u)
		}
		if u = strings.TrimRight(u, "/"); !seen[u] {
			seen[u] = true
			urls = append(urls, u)
		}
	}
	o.EngineURLs = urls
	o.PublicURL = strings.TrimRight(o.PublicURL, "/")
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Port < 0 {
		o.Port = 0
	}
	positive := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	positive(&o.Concurrency, 16)
	positive(&o.CallbackConcurrency, 32)
	if o.QueueLimit < 0 {
		o.QueueLimit = 1000
	}
	duration := func(v *time.Duration, d time.Duration, zeroIsDefault bool) {
		if *v < 0 || (*v == 0 && zeroIsDefault) {
			*v = d
		}
	}
	duration(&o.HeartbeatInterval, 3*time.Second, true)
	if o.HeartbeatInterval < 10*time.Millisecond {
		o.HeartbeatInterval = 10 * time.Millisecond
	}
	duration(&o.RetryBase, 200*time.Millisecond, true)
	duration(&o.RetryMax, 30*time.Second, true)
	duration(&o.ShutdownGrace, 10*time.Second, false)
	duration(&o.ShutdownFlush, 5*time.Second, true)
	duration(&o.AbortGrace, 5*time.Second, true)
	duration(&o.ProgressInterval, time.Second, true)
	duration(&o.RequestTimeout, 10*time.Second, true)
	duration(&o.RerouteAfter, time.Second, true)
	if o.Logger == nil {
		o.Logger = log.New(os.Stderr, "[baton executor] ", log.LstdFlags)
	}
	if o.SpoolFile == "" && o.DefaultSpool {
		o.SpoolFile = filepath.Join(".baton", "spool-"+o.App+".jsonl")
	} else {
		o.DefaultSpool = false // an explicit file is that file, or an error when it is held
	}
	if o.SpoolFile != "" {
		abs, err := filepath.Abs(o.SpoolFile)
		if err != nil {
			return o, fmt.Errorf("executor options: SpoolFile %q: %w", o.SpoolFile, err)
		}
		o.SpoolFile = abs
	}
	return o, nil
}

// discardLogger is for tests.
var discardLogger = log.New(io.Discard, "", 0)
