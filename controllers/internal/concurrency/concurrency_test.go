package concurrency

import (
	"testing"

	"k8s.io/utils/ptr"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
)

func TestAdmit(t *testing.T) {
	cases := map[string]struct {
		// spec
		policy        cronjobv1.ConcurrencyPolicy
		maxActiveJobs *int32
		// environment
		active, ahead int
		// expectations
		want      Verdict
		wantLimit int32
		wantBound bool
	}{
		"Allow, no maxActiveJobs, 50 active: start":         {policy: cronjobv1.AllowConcurrent, active: 50, want: Start},
		"unset policy is Allow: start":                      {active: 3, ahead: 2, want: Start},
		"Allow, maxActiveJobs 2, 1 active: start":           {policy: cronjobv1.AllowConcurrent, maxActiveJobs: ptr.To[int32](2), active: 1, want: Start, wantLimit: 2, wantBound: true},
		"Allow, maxActiveJobs 2, 2 active: hold":            {policy: cronjobv1.AllowConcurrent, maxActiveJobs: ptr.To[int32](2), active: 2, want: Hold, wantLimit: 2, wantBound: true},
		"Allow, maxActiveJobs 2, 1 active, 1 ahead: hold":   {policy: cronjobv1.AllowConcurrent, maxActiveJobs: ptr.To[int32](2), active: 1, ahead: 1, want: Hold, wantLimit: 2, wantBound: true},
		"Forbid, none active: start":                        {policy: cronjobv1.ForbidConcurrent, want: Start, wantLimit: 1, wantBound: true},
		"Forbid, 1 active: hold":                            {policy: cronjobv1.ForbidConcurrent, active: 1, want: Hold, wantLimit: 1, wantBound: true},
		"Forbid, none active, 1 ahead: hold":                {policy: cronjobv1.ForbidConcurrent, ahead: 1, want: Hold, wantLimit: 1, wantBound: true},
		"Forbid ignores maxActiveJobs 3, 1 active: hold":    {policy: cronjobv1.ForbidConcurrent, maxActiveJobs: ptr.To[int32](3), active: 1, want: Hold, wantLimit: 1, wantBound: true},
		"Enqueue, default limit 1, none active: start":      {policy: cronjobv1.EnqueueConcurrent, want: Start, wantLimit: 1, wantBound: true},
		"Enqueue, default limit 1, 1 active: hold":          {policy: cronjobv1.EnqueueConcurrent, active: 1, want: Hold, wantLimit: 1, wantBound: true},
		"Enqueue, maxActiveJobs 3, 2 active: start":         {policy: cronjobv1.EnqueueConcurrent, maxActiveJobs: ptr.To[int32](3), active: 2, want: Start, wantLimit: 3, wantBound: true},
		"Enqueue, maxActiveJobs 3, 2 active, 1 ahead: hold": {policy: cronjobv1.EnqueueConcurrent, maxActiveJobs: ptr.To[int32](3), active: 2, ahead: 1, want: Hold, wantLimit: 3, wantBound: true},
		"Replace, 4 active: replace":                        {policy: cronjobv1.ReplaceConcurrent, active: 4, want: Replace},
		"Replace with maxActiveJobs 1, 1 active: replace":   {policy: cronjobv1.ReplaceConcurrent, maxActiveJobs: ptr.To[int32](1), active: 1, want: Replace},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &cronjobv1.CronJobSpec{ConcurrencyPolicy: tc.policy, MaxActiveJobs: tc.maxActiveJobs}
			if got := Admit(spec, tc.active, tc.ahead); got != tc.want {
				t.Errorf("Admit = %s, want %s", got, tc.want)
			}
			if limit, bound := Limit(spec); limit != tc.wantLimit || bound != tc.wantBound {
				t.Errorf("Limit = %d, %t, want %d, %t", limit, bound, tc.wantLimit, tc.wantBound)
			}
		})
	}
}
