// Command example is a service of its own that serves GitLab's /api/v4 beside its other
// routes: it opens a forgecore instance and mounts forgecore.NewHandler in its own mux.
//
//	go run . -data-dir /tmp/forge -listen 127.0.0.1:8081
//	curl http://127.0.0.1:8081/                      # this program's page
//	curl http://127.0.0.1:8081/api/v4/version        # forgecore
//
// No external URL is configured, so the core builds absolute links (pagination) from each
// request's Host header.
//
// How a Go service depends on forgecore: its go.mod requires the module forgecore.dev/forgecore
// and, as this one does (go.mod), points it at a checkout's bindings/go with a replace
// directive. Built plainly, the binding links that checkout's target/debug/libforgecore.a
// (make build). A service built against an installed library (make install PREFIX=/usr/local,
// or a package) uses the build tag forgecore_system, which takes the flags from pkg-config:
//
//	make -C /path/to/forgecore install PREFIX=$HOME/.local
//	PKG_CONFIG_PATH=$HOME/.local/lib/pkgconfig go build -tags forgecore_system .
//	LD_LIBRARY_PATH=$HOME/.local/lib ./example -data-dir /tmp/forge   # no need under /usr/local after ldconfig
//
// make test-install builds and runs this program that way.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"forgecore.dev/forgecore"
)

// newMux routes /api/v4/ to forgecore (the whole request target goes to the core unchanged)
// and everything else to this program.
func newMux(core *forgecore.Core) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/api/v4/", forgecore.NewHandler(core))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "An example service. GitLab's API is under /api/v4/.")
	})
	return mux
}

func main() {
	listen := flag.String("listen", "127.0.0.1:8081", "HOST:PORT to listen on")
	dataDir := flag.String("data-dir", "", "forgecore's data directory (required)")
	flag.Parse()
	if *dataDir == "" {
		log.Fatal("-data-dir is required")
	}
	core, err := forgecore.Open(forgecore.Config{DataDir: *dataDir})
	if err != nil {
		log.Fatal(err)
	}
	defer core.Close()

	// The first start creates the administrator and prints its token.
	response, err := core.Admin(map[string]any{"command": "bootstrap"})
	if err != nil {
		log.Fatal(err)
	}
	var boot struct{ Token string }
	if err := response.JSON(&boot); err != nil {
		log.Fatal(err)
	}
	if boot.Token != "" {
		fmt.Println("admin token:", boot.Token)
	}

	server := &http.Server{Addr: *listen, Handler: newMux(core), ReadHeaderTimeout: 30 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = server.Shutdown(shutdown)
	}()
	fmt.Println("listening on", "http://"+*listen)
	if err := server.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Print(err)
	}
}
