package v2_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
)

// filler fills every field of an object from the fuzzer's bytes, nil or set, empty or not, with
// apimachinery's rules for metadata, times and quantities (times at whole seconds, as JSON keeps them).
// Unions get every branch and both at once: a conversion must not lose even an object admission would
// refuse.
func filler(t testing.TB, data []byte) *randfill.Filler {
	return randfill.NewFromGoFuzz(data).NilChance(0.3).NumElements(0, 2).MaxDepth(12).
		Funcs(metafuzzer.Funcs(serializer.NewCodecFactory(scheme(t)))...)
}

// roundTrip is the property of both fuzz targets: through the Go conversion, and through the /convert
// handler in JSON (compared with the source's own JSON round trip, so that what JSON cannot hold, such as
// a nil and an empty map in the pod template, is not blamed on the conversion).
func roundTrip[A, B any](t *testing.T, in *A, there func(*A, *B), back func(*B, *A), wantVersion, otherVersion string) {
	var mid B
	var out A
	there(in, &mid)
	back(&mid, &out)
	if !apiequality.Semantic.DeepEqual(in, &out) {
		t.Fatalf("the round trip changed the object (-want +got):\n%s", cmp.Diff(in, &out))
	}

	h := handler(t)
	var viaJSON, viaWebhook A
	raw, err := json.Marshal(in)
	if err != nil {
		t.Skip("not JSON:", err) // randfill can build values JSON refuses (NaN quantities); the Go path above ran
	}
	if err := json.Unmarshal(raw, &viaJSON); err != nil {
		t.Skip("JSON does not read back:", err)
	}
	var midJSON B
	if err := json.Unmarshal(review(t, h, &viaJSON, otherVersion), &midJSON); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(review(t, h, &midJSON, wantVersion), &viaWebhook); err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(&viaJSON, &viaWebhook) {
		t.Fatalf("the round trip through /convert changed the object (-want +got):\n%s", cmp.Diff(&viaJSON, &viaWebhook))
	}
}

// FuzzRoundTripV1: every v1 CronJob reads back identical after v1 -> v2 -> v1.
func FuzzRoundTripV1(f *testing.F) {
	for _, seed := range []string{"", "a", "cron", "crons both at once", "\x00\x01\x02\x03\x04\x05\x06\x07"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &cronjobv1.CronJob{}
		filler(t, data).Fill(in)
		in.APIVersion, in.Kind = cronjobv1.GroupVersion.String(), "CronJob"
		roundTrip(t, in, cronjobv2.ToV2, cronjobv2.ToV1, "batch.cronjob-operator.dev/v1", "batch.cronjob-operator.dev/v2")
	})
}

// FuzzRoundTripV2: every v2 CronJob reads back identical after v2 -> v1 -> v2.
func FuzzRoundTripV2(f *testing.F) {
	for _, seed := range []string{"", "b", "cron", "crons both at once", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &cronjobv2.CronJob{}
		filler(t, data).Fill(in)
		in.APIVersion, in.Kind = cronjobv2.GroupVersion.String(), "CronJob"
		roundTrip(t, in, cronjobv2.ToV1, cronjobv2.ToV2, "batch.cronjob-operator.dev/v2", "batch.cronjob-operator.dev/v1")
	})
}
