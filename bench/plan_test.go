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

func TestPopulationMix(t *testing.T) {
	cases := map[string]struct {
		// flags
		size, minutely int
		// expectations
		want    mix
		wantErr bool
	}{
		"issue 28's 100,000, minutely not given: 1 %":  {size: 100000, minutely: -1, want: mix{minutely: 1000, hourly: 49500, daily: 49500}},
		"10,000, minutely not given: 1 %":              {size: 10000, minutely: -1, want: mix{minutely: 100, hourly: 4950, daily: 4950}},
		"1 % rounds down":                              {size: 1999, minutely: -1, want: mix{minutely: 19, hourly: 990, daily: 990}},
		"under 100, minutely not given: none minutely": {size: 50, minutely: -1, want: mix{hourly: 25, daily: 25}},
		"minutely given, an odd rest: one more hourly": {size: 10, minutely: 3, want: mix{minutely: 3, hourly: 4, daily: 3}},
		"minutely given as 0":                          {size: 4, minutely: 0, want: mix{hourly: 2, daily: 2}},
		"all minutely":                                 {size: 5, minutely: 5, want: mix{minutely: 5}},
		"more minutely than CronJobs fails":            {size: 5, minutely: 6, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := populationMix(tc.size, tc.minutely)
			if (err != nil) != tc.wantErr {
				t.Fatalf("populationMix(%d, %d) error = %v, want error %v", tc.size, tc.minutely, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(mix{})); diff != "" {
				t.Errorf("populationMix(%d, %d) (-want,+got):\n%s", tc.size, tc.minutely, diff)
			}
			if tc.wantErr {
				return
			}
			// population lays out the same mix.
			var counted mix
			for _, s := range population(tc.size, got.minutely) {
				switch strings.Count(s.schedule, "*") {
				case 5:
					counted.minutely++
				case 4:
					counted.hourly++
				default:
					counted.daily++
				}
			}
			if diff := cmp.Diff(got, counted, cmp.AllowUnexported(mix{})); diff != "" {
				t.Errorf("population(%d, %d) schedules by kind (-mix,+laid out):\n%s", tc.size, got.minutely, diff)
			}
		})
	}
}

func TestPlanPopulationDescription(t *testing.T) {
	sc, phases, err := plan("population", sizes{repetitions: 1, populationSize: 100000, populationMinutely: -1, populationMinutes: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := "100000 CronJobs: 1000 minutely (1 %), 49500 hourly and 49500 daily, spread over the minutes of the hour " +
		"and the day; 5 scheduled minutes measured."
	if sc.Description != want {
		t.Errorf("description:\n got %q\nwant %q", sc.Description, want)
	}
	if len(phases) != 2 || len(phases[0].cronJobs) != 100000 {
		t.Errorf("plan: %d phases of %d CronJobs, want 2 of 100000", len(phases), len(phases[0].cronJobs))
	}
	if phases[0].measureStart {
		t.Error("-population-start=false: a phase measures the start")
	}
	sc, phases, err = plan("population", sizes{repetitions: 1, populationSize: 100, populationMinutely: -1, populationMinutes: 1, populationStart: true})
	if err != nil {
		t.Fatal(err)
	}
	if !phases[0].measureStart || !phases[1].measureStart || !strings.HasSuffix(sc.Description, "with its CronJobs present: the time to start.") {
		t.Errorf("-population-start: phases measure the start %v, %v; description %q; want both, and the description to say so",
			phases[0].measureStart, phases[1].measureStart, sc.Description)
	}
	if _, _, err := plan("population", sizes{repetitions: 1, populationSize: 10, populationMinutely: 11, populationMinutes: 5}); err == nil {
		t.Error("plan of a population with more minutely CronJobs than CronJobs: want an error")
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
