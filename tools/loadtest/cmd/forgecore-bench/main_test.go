package main

import (
	"strings"
	"testing"
	"time"
)

func TestDatabaseURLReplacesTheDatabaseOnly(t *testing.T) {
	cases := map[string]string{
		"postgresql://u:p%40w@localhost:5433/postgres":          "postgresql://u:p%40w@localhost:5433/fresh",
		"postgresql://u:pw@localhost:5433":                      "postgresql://u:pw@localhost:5433/fresh",
		"postgres://u@db.internal/forge?connect_timeout=5":      "postgres://u@db.internal/fresh?connect_timeout=5",
		"postgresql://u:pw@[::1]:5432/postgres?sslmode=disable": "postgresql://u:pw@[::1]:5432/fresh?sslmode=disable",
	}
	for server, want := range cases {
		got, err := databaseURL(server, "fresh")
		if err != nil || got != want {
			t.Errorf("databaseURL(%q) = %q, %v; want %q", server, got, err, want)
		}
	}
	for _, bad := range []string{"", "localhost:5432", "mysql://u@h/db", "postgresql:///socketonly"} {
		if _, err := databaseURL(bad, "fresh"); err == nil || !strings.Contains(err.Error(), "-postgres must be") {
			t.Errorf("databaseURL(%q): %v", bad, err)
		}
	}
}

func TestLatencyRatioMarksWhatIsOverTwice(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		lite, pg time.Duration
		want     string
	}{
		{ms, ms * 3 / 2, "1.50"},
		{ms, 2 * ms, "2.00"},
		{ms, 5 * ms / 2, "2.50 (over 2x)"},
		{0, ms, "-"},
		{ms, 0, "-"},
	} {
		if got := latencyRatio(c.lite, c.pg); got != c.want {
			t.Errorf("latencyRatio(%v, %v) = %q, want %q", c.lite, c.pg, got, c.want)
		}
	}
}
