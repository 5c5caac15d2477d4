package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
)

func TestPopulationSchedules(t *testing.T) {
	specs := population(10, 4)
	want := []string{"* * * * *", "* * * * *", "* * * * *", "* * * * *", "0 * * * *", "0 0 * * *", "1 * * * *", "1 0 * * *", "2 * * * *", "2 0 * * *"}
	var got []string
	for _, s := range specs {
		got = append(got, s.schedule)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("population(10, 4) schedules (-want,+got):\n%s", diff)
	}
	// At the full size every minute of the hour has the same number of hourly runs due.
	perMinute := map[string]int{}
	for _, s := range population(10000, 100)[100:] {
		if m, rest, _ := strings.Cut(s.schedule, " "); rest == "* * * *" {
			perMinute[m]++
		}
	}
	if len(perMinute) != 60 || perMinute["0"] != 83 || perMinute["59"] != 82 {
		t.Errorf("hourly runs per minute of the hour: %d minutes, %d at :00, %d at :59; want 60, 83, 82",
			len(perMinute), perMinute["0"], perMinute["59"])
	}
}

func TestPlanAlternatesTheOrder(t *testing.T) {
	sz := sizes{repetitions: 3, singleMinutes: 2}
	_, phases, err := plan("single", sz)
	if err != nil {
		t.Fatal(err)
	}
	var got []results.Controller
	for _, p := range phases {
		got = append(got, p.controller)
	}
	if diff := cmp.Diff([]results.Controller{results.Ours, results.Peer, results.Peer, results.Ours, results.Ours, results.Peer}, got); diff != "" {
		t.Errorf("phase order (-want,+got):\n%s", diff)
	}
	if _, _, err := plan("nope", sz); err == nil {
		t.Error("plan of an unknown scenario: want an error")
	}
}

func TestOursCorrect(t *testing.T) {
	run := &results.Run{Scenarios: []results.Scenario{{Name: "burst", Results: []results.Result{
		{Controller: results.Ours, Expected: 10},
		{Controller: results.Peer, Expected: 10, Lost: 2},
	}}}}
	if err := oursCorrect(run); err != nil {
		t.Errorf("the peer's lost runs failed the run: %v", err)
	}
	run.Scenarios[0].Results[0].Duplicates = 1
	if err := oursCorrect(run); err == nil || !strings.Contains(err.Error(), "duplicated 1 of 10") {
		t.Errorf("ours duplicating a run: got %v, want an error naming it", err)
	}
}
