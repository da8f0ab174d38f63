package hostproc

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestStartReadsTokenAndURLThenStops(t *testing.T) {
	script := `trap 'exit 0' TERM; echo "admin token: tok123"; echo "listening on http://127.0.0.1:9/"; while :; do sleep 0.1; done`
	h, err := Start(context.Background(), 10*time.Second, "sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	if h.Token != "tok123" || h.URL != "http://127.0.0.1:9" || h.Pid <= 0 {
		t.Fatalf("token %q url %q pid %d", h.Token, h.URL, h.Pid)
	}
	if err := h.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := h.Stop(time.Second); err == nil {
		t.Fatal("stopping a stopped host is no error")
	}
}

func TestStartFailsWithTheHostsErrors(t *testing.T) {
	cases := map[string]string{
		"exits early": `echo "cannot open the data directory" >&2; exit 3`,
		"no token":    `echo "cannot open the data directory" >&2; echo "listening on http://127.0.0.1:9"; exec sleep 5`,
	}
	for name, script := range cases {
		_, err := Start(context.Background(), 10*time.Second, "sh", "-c", script)
		if err == nil || !strings.Contains(err.Error(), "cannot open the data directory") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
