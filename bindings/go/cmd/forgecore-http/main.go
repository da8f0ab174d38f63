// Command forgecore-http serves forgecore's /api/v4 over net/http, as the Python host does:
//
//	forgecore-http -data-dir DIR [-listen HOST:PORT] [-repos DIR] [-external-url URL] [-config FILE] [-print-admin-token]
//	               [-read-timeout DURATION] [-max-connections N]
//
// -config names a JSON object merged over the configuration the host builds ({"data_dir",
// "external_url"}): its top-level keys replace those (so it may name data_dir itself, and
// then -data-dir may be left out) and the rest (rate_limits, limits, features) go to fc_open
// as they are; the core checks them.
//
// It listens first (so that port 0 works and the URL is known), opens the core with that URL
// as its external URL, runs the core's start admin command (which creates the administrator on
// the first start, with -print-admin-token issues a fresh token every start, registers every
// git repository under -repos as a public project, and answers the lines to print, the last
// "listening on URL", which tells a supervisor the host is ready), serves, prints those lines,
// and on SIGINT or SIGTERM stops accepting, lets requests in flight finish and closes the core.
//
// Clients that hold a connection without finishing their request must not hold the host: the
// whole request, head and body, must arrive within -read-timeout (default 30s), and at most
// -max-connections (default 256) are served at once; one more is answered 503 and closed at
// once (see cappedListener).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"forgecore.dev/forgecore"
)

const (
	// shutdownTimeout bounds how long requests in flight may take once a signal arrived.
	shutdownTimeout = 15 * time.Second
	// Defaults of -read-timeout and -max-connections.
	defaultReadTimeout    = 30 * time.Second
	defaultMaxConnections = 256
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	listen          string
	dataDir         string
	repos           string
	externalURL     string
	printAdminToken bool
	config          map[string]json.RawMessage // the -config file's object, nil without one
	readTimeout     time.Duration
	maxConnections  int
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	flags := flag.NewFlagSet("forgecore-http", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.StringVar(&o.listen, "listen", "127.0.0.1:8080", "`HOST:PORT` to listen on (port 0: any free port)")
	flags.StringVar(&o.dataDir, "data-dir", "", "the instance's data `directory` (created if missing)")
	flags.StringVar(&o.repos, "repos", "", "register every git repository under this `directory` as a public project")
	flags.StringVar(&o.externalURL, "external-url", "", "public base `URL` (default http://HOST:PORT)")
	configFile := flags.String("config", "", "a JSON `file` merged over the configuration given to the core (rate_limits, limits, features, ...)")
	flags.BoolVar(&o.printAdminToken, "print-admin-token", false, "issue and print a token for the administrator")
	flags.DurationVar(&o.readTimeout, "read-timeout", defaultReadTimeout,
		"the whole request, head and body, must arrive within this `duration`, or the connection is closed")
	flags.IntVar(&o.maxConnections, "max-connections", defaultMaxConnections,
		"connections served at once; one more is answered 503 and closed")
	if err := flags.Parse(args); err != nil {
		return o, err
	}
	if flags.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", flags.Args())
	}
	if o.readTimeout <= 0 {
		return o, fmt.Errorf("-read-timeout must be above 0, got %v", o.readTimeout)
	}
	if o.maxConnections < 1 {
		return o, fmt.Errorf("-max-connections must be above 0, got %d", o.maxConnections)
	}
	if *configFile != "" {
		text, err := os.ReadFile(*configFile)
		if err != nil {
			return o, fmt.Errorf("-config: %v", err)
		}
		if err := json.Unmarshal(text, &o.config); err != nil || o.config == nil {
			return o, fmt.Errorf("-config: %s is not a JSON object", *configFile)
		}
	}
	if _, ok := o.config["data_dir"]; o.dataDir == "" && !ok {
		return o, errors.New("-data-dir is required (or data_dir in the -config file)")
	}
	return o, nil
}

// listenAddress checks HOST:PORT; an empty host is 127.0.0.1.
func listenAddress(text string) (host, port string, err error) {
	host, port, err = net.SplitHostPort(text)
	if err != nil {
		return "", "", fmt.Errorf("-listen must be HOST:PORT, got %q", text)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", "", fmt.Errorf("-listen must be HOST:PORT, got %q", text)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return host, port, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
		return 2
	}
	host, port, err := listenAddress(o.listen)
	if err != nil {
		fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
		return 2
	}
	listener, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		fmt.Fprintf(stderr, "forgecore-http: cannot listen on %s: %v\n", o.listen, err)
		return 1
	}
	defer listener.Close()
	url := o.externalURL
	if url == "" {
		url = "http://" + net.JoinHostPort(host, strconv.Itoa(listener.Addr().(*net.TCPAddr).Port))
	}

	config := map[string]json.RawMessage{}
	for key, value := range map[string]string{"data_dir": o.dataDir, "external_url": url} {
		config[key], _ = json.Marshal(value)
	}
	for key, value := range o.config {
		config[key] = value
	}
	text, err := json.Marshal(config)
	if err != nil {
		fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
		return 1
	}
	core, err := forgecore.OpenJSON(text)
	if err != nil {
		fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
		return 1
	}
	defer core.Close()

	start := map[string]any{"command": "start", "issue_token": o.printAdminToken, "url": url}
	if o.repos != "" {
		start["repos"] = o.repos
	}
	var started struct {
		Lines []string `json:"lines"`
	}
	if err := admin(core, start, &started); err != nil {
		fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
		return 1
	}

	server := &http.Server{
		Handler: forgecore.NewHandler(core),
		// ReadTimeout bounds head and body together, from the request's start; net/http holds
		// the head to ReadHeaderTimeout instead when one is set, so it is the same. No
		// WriteTimeout: archives stream for a long time, and it would cut them off.
		ReadHeaderTimeout: o.readTimeout,
		ReadTimeout:       o.readTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	signals, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- server.Serve(capConnections(listener.(*net.TCPListener), o.maxConnections)) }()
	for _, line := range started.Lines {
		fmt.Fprintln(stdout, line)
	}
	if f, ok := stdout.(*os.File); ok {
		_ = f.Sync()
	}

	select {
	case err := <-served:
		fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
		return 1
	case <-signals.Done():
	}
	stop()
	deadline, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := server.Shutdown(deadline); err != nil {
		fmt.Fprintf(stderr, "forgecore-http: shutting down: %v\n", err)
		_ = server.Close()
	}
	<-served
	return 0
}

// admin runs one admin command and decodes its answer; a non-2xx answer is an error.
func admin(core *forgecore.Core, command map[string]any, out any) error {
	response, err := core.Admin(command)
	if err != nil {
		return err
	}
	body, err := response.Bytes()
	if err != nil {
		return err
	}
	if response.Status < 200 || response.Status > 299 {
		return fmt.Errorf("%s: %d %s", command["command"], response.Status, body)
	}
	return json.Unmarshal(body, out)
}
