//go:build race

package main

// raceEnabled: this test binary, which also runs as the host under test, carries the race
// detector, whose shadow memory grows with every allocation: RSS bounds are not measured then
// (make test runs the memory tests once more without it).
const raceEnabled = true
