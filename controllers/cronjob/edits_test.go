package cronjob

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	. "github.com/cronjob-operator/cronjob-operator/controllers/internal/unittest"
	"github.com/cronjob-operator/cronjob-operator/controllers/schedule"
	"github.com/cronjob-operator/cronjob-operator/test/builders"
)

// editEntry is a managedFields entry of the client manager, written at t, that owns the spec fields given
// (fieldsV1 keys such as "f:suspend").
func editEntry(manager string, t time.Time, specFields ...string) metav1.ManagedFieldsEntry {
	raw := `{"f:spec":{`
	for i, f := range specFields {
		if i > 0 {
			raw += ","
		}
		raw += `"` + f + `":{}`
	}
	raw += `}}`
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate,
		APIVersion: cronjobv1.GroupVersion.String(), Time: TimePtr(t), FieldsType: "FieldsV1",
		FieldsV1: metav1.NewFieldsV1(raw)}
}

// edit is the managedFields entry of an edit of the spec fields given at t by kubectl, for
// Hourly().Edited(edit(...)), which also bumps the generation as the API server does for a spec change.
func edit(t time.Time, specFields ...string) metav1.ManagedFieldsEntry {
	return editEntry("kubectl-edit", t, specFields...)
}

// withManagedFields returns a reader that reads through r and gives the CronJob cj the managedFields it
// was built with: the API server's record of who edited what and when, which the fake client drops.
func withManagedFields(r client.Reader, cj *cronjobv1.CronJob) client.Reader {
	if len(cj.ManagedFields) == 0 {
		return r
	}
	return &managedFieldsReader{Reader: r, key: client.ObjectKeyFromObject(cj), fields: cj.ManagedFields}
}

type managedFieldsReader struct {
	client.Reader
	key    client.ObjectKey
	fields []metav1.ManagedFieldsEntry
}

func (m *managedFieldsReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := m.Reader.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	if _, isJob := obj.(*batchv1.Job); !isJob && key == m.key {
		obj.SetManagedFields(m.fields)
	}
	return nil
}

// metadataReads counts the GETs of objects' metadata (PartialObjectMetadata) through a reader.
type metadataReads struct {
	client.Reader
	n int
}

func (m *metadataReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*metav1.PartialObjectMetadata); ok {
		m.n++
	}
	return m.Reader.Get(ctx, key, obj, opts...)
}

func TestLastEditOf(t *testing.T) {
	statusEntry := editEntry("cronjob-operator", HM(11, 0), "f:suspend")
	statusEntry.Subresource = "status"
	noTime := editEntry("kubectl", HM(11, 0), "f:suspend")
	noTime.Time = nil
	malformed := editEntry("kubectl", HM(11, 0))
	malformed.FieldsV1 = metav1.NewFieldsV1(`{"f:spec":`)

	cases := map[string]struct {
		entries []metav1.ManagedFieldsEntry
		want    time.Time
	}{
		"no entries: unknown": {},
		"the creator's entry owns the schedule: its time": {
			entries: []metav1.ManagedFieldsEntry{editEntry("kubectl-create", PriorHour, "f:schedule", "f:jobTemplate")},
			want:    PriorHour,
		},
		"a later edit of suspend by another client: the later time": {
			entries: []metav1.ManagedFieldsEntry{
				editEntry("kubectl-create", PriorHour, "f:schedule", "f:suspend"),
				editEntry("kubectl-patch", HM(10, 30), "f:suspend"),
			},
			want: HM(10, 30),
		},
		"a later edit of the time zone, listed first: the later time": {
			entries: []metav1.ManagedFieldsEntry{
				editEntry("kubectl-patch", HM(10, 30), "f:timeZone"),
				editEntry("kubectl-create", PriorHour, "f:schedule"),
			},
			want: HM(10, 30),
		},
		"a later edit of the Job template only: not an edit of the schedule": {
			entries: []metav1.ManagedFieldsEntry{
				editEntry("kubectl-create", PriorHour, "f:schedule"),
				editEntry("kubectl-patch", HM(10, 30), "f:jobTemplate"),
			},
			want: PriorHour,
		},
		"the controller's status entry, later: ignored": {
			entries: []metav1.ManagedFieldsEntry{editEntry("kubectl-create", PriorHour, "f:schedule"), statusEntry},
			want:    PriorHour,
		},
		"an entry without a time or with fields that do not parse: ignored": {
			entries: []metav1.ManagedFieldsEntry{editEntry("kubectl-create", PriorHour, "f:schedule"), noTime, malformed},
			want:    PriorHour,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := lastEditOf(tc.entries, scheduleFields)
			if !got.Equal(tc.want) {
				t.Errorf("lastEditOf = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestMatrixEditTime pins "no surprise runs" when the controller did not see an edit happen: the edit took
// effect when the API server recorded it (managedFields), not when the controller noticed it, so after a
// downtime the most recent run due after the edit starts and none due before it.
func TestMatrixEditTime(t *testing.T) {
	const pad = schedule.RequeuePadding
	suspendedSince9 := observed("0 * * * *", true, PriorHour)
	starts := func(slot time.Time, requeue time.Duration) outcome {
		return outcome{Created: []createdJob{newRun(slot)}, Active: []string{JobName(slot)}, LastSchedule: TimePtr(slot),
			Events: []string{evCreated}, StatusWrites: 1, Ready: cronjobv1.ReasonScheduled, Requeue: requeue}
	}
	nothing := func(requeue time.Duration) outcome {
		return outcome{LastSchedule: TimePtr(PriorHour), StatusWrites: 1, Ready: cronjobv1.ReasonScheduled, Requeue: requeue}
	}
	runMatrix(t, map[string]scenario{
		"resumed at 10:30 while the controller was down, now 11:05: the 11:00 run, due after the resume, starts": {
			cronJob: Hourly().LastScheduleTime(PriorHour).ObservedSchedule(suspendedSince9).Edited(edit(HM(10, 30), "f:suspend")), now: HM(11, 5),
			want: starts(HM(11, 0), 55*time.Minute+pad),
		},
		"resumed at 10:30 while the controller was down, now 10:45: the 10:00 run, due while suspended, does not start": {
			cronJob: Hourly().LastScheduleTime(PriorHour).ObservedSchedule(suspendedSince9).Edited(edit(HM(10, 30), "f:suspend")), now: HM(10, 45),
			want: nothing(15*time.Minute + pad),
		},
		"resumed exactly at 10:00 while the controller was down: the 10:00 run is not after the resume and does not start": {
			cronJob: Hourly().LastScheduleTime(PriorHour).ObservedSchedule(suspendedSince9).Edited(edit(TopOfTheHour, "f:suspend")), now: HM(10, 45),
			want: nothing(15*time.Minute + pad),
		},
		"schedule edited to 30 * * * * at 10:40 while the controller was down, now 11:35: the 11:30 run starts": {
			cronJob: Hourly().Schedule("30 * * * *").LastScheduleTime(PriorHour).ObservedSchedule(observed("0 * * * *", false, PriorHour)).Edited(edit(HM(10, 40), "f:schedule")),
			now:     HM(11, 35),
			want:    starts(HM(11, 30), 55*time.Minute+pad),
		},
		"resumed, with an edit time later than now (the API server's clock ahead): counts as now, nothing starts": {
			cronJob: Hourly().LastScheduleTime(PriorHour).ObservedSchedule(suspendedSince9).Edited(edit(HM(12, 0), "f:suspend")), now: HM(11, 5),
			want: nothing(55*time.Minute + pad),
		},
		"resumed, the owner of suspend recorded a time before the last observation: the old since holds": {
			cronJob: Hourly().LastScheduleTime(PriorHour).ObservedSchedule(observed("0 * * * *", true, HM(9, 30))).Edited(edit(PriorHour, "f:schedule", "f:suspend")).Edited(edit(HM(10, 30), "f:jobTemplate")),
			now:     HM(11, 5),
			want:    starts(HM(11, 0), 55*time.Minute+pad),
		},
	})
}

// TestFirstObservationAfterAnEdit pins the first observation of a CronJob that was edited before the
// controller ever saw it (created and resumed while the controller was down): the runs due before the edit
// do not start.
func TestFirstObservationAfterAnEdit(t *testing.T) {
	cases := map[string]struct {
		cronJob *builders.CronJobWrapper // nil: Hourly()
		now     time.Time
		// expectations
		wantJobs  []string
		wantSince time.Time
		wantReads int // live GETs of the CronJob's metadata: one per edit to look up, none otherwise
	}{
		"created at 09:00, resumed at 10:30 before the controller saw it, now 10:45: the 10:00 run does not start": {
			cronJob: Hourly().Edited(edit(HM(10, 30), "f:suspend")), now: HM(10, 45),
			wantJobs: []string{}, wantSince: HM(10, 30), wantReads: 1,
		},
		"created at 09:00, resumed at 10:30 before the controller saw it, now 11:05: the 11:00 run starts": {
			cronJob: Hourly().Edited(edit(HM(10, 30), "f:suspend")), now: HM(11, 5),
			wantJobs: []string{JobName(HM(11, 0))}, wantSince: HM(10, 30), wantReads: 1,
		},
		"created at 09:00, never edited, now 10:05: the 10:00 run starts, counted from the creation, with no GET": {
			now:      HM(10, 5),
			wantJobs: []string{JobName(TopOfTheHour)}, wantSince: PriorHour,
		},
		"last ran at 10:00, edited at 09:30 (before that run): counted from the last run": {
			cronJob: Hourly().LastScheduleTime(TopOfTheHour).Edited(edit(HM(9, 30), "f:schedule")), now: HM(11, 5),
			wantJobs: []string{JobName(HM(11, 0))}, wantSince: TopOfTheHour, wantReads: 1,
		},
	}
	for caseName, tc := range cases {
		t.Run(caseName, func(t *testing.T) {
			cj := CronJobOf(tc.cronJob)
			f := newFixture(t, tc.now, interceptor.Funcs{}, cj)
			reads := &metadataReads{Reader: withManagedFields(f.r.APIReader, cj)}
			f.r.APIReader = reads
			if _, err := f.reconcile(t); err != nil {
				t.Fatalf("Reconcile: %v", err)
			}
			if reads.n != tc.wantReads {
				t.Errorf("live GETs of the CronJob's metadata = %d, want %d", reads.n, tc.wantReads)
			}
			if diff := cmp.Diff(tc.wantJobs, f.jobNames(t)); diff != "" {
				t.Errorf("Jobs (-want,+got):\n%s", diff)
			}
			obs := f.cronJob(t).Status.ObservedSchedule
			if obs == nil || !obs.Since.Time.Equal(tc.wantSince) || obs.Suspended != ptr.Deref(cj.Spec.Suspend, false) {
				t.Errorf("status.observedSchedule = %+v, want since %v", obs, tc.wantSince)
			}
		})
	}
}
