package plugin

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/rest"

	cronjobv1 "github.com/cronjob-operator/cronjob-operator/api/v1"
	cronjobv2 "github.com/cronjob-operator/cronjob-operator/api/v2"
)

// Client is what the commands ask of the cluster. Its errors are the API server's, as client-go returns
// them (apierrors.IsNotFound and the like apply).
type Client interface {
	// GetCronJob returns the CronJob name of namespace ns.
	GetCronJob(ctx context.Context, ns, name string) (*cronjobv1.CronJob, error)
	// PatchCronJob applies the JSON merge patch to the CronJob name of namespace ns.
	PatchCronJob(ctx context.Context, ns, name string, patch []byte) error
	// CreateRun creates run in its namespace and returns it as the API server created it (with the name it
	// generated from GenerateName, ...).
	CreateRun(ctx context.Context, run *cronjobv1.CronJobRun) (*cronjobv1.CronJobRun, error)
	// GetRun returns the CronJobRun name of namespace ns.
	GetRun(ctx context.Context, ns, name string) (*cronjobv1.CronJobRun, error)
	// GetCalendar returns the CronCalendar name of namespace ns.
	GetCalendar(ctx context.Context, ns, name string) (*cronjobv1.CronCalendar, error)
}

// Scheme returns the scheme of the plugin's client: the CronJob API.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(cronjobv1.AddToScheme(s))
	utilruntime.Must(cronjobv2.AddToScheme(s))
	return s
}

// NewClient returns a Client of the CronJob API (batch.cronjob-operator.dev/v1) of the cluster cfg
// connects to, in JSON. It sends no request; cfg is not modified.
func NewClient(cfg *rest.Config) (Client, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.APIPath = "/apis"
	cfg.GroupVersion = &cronjobv1.GroupVersion
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(Scheme()).WithoutConversion()
	c, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, err
	}
	return restClient{c: c}, nil
}

// restClient is the Client over client-go's REST client of the CronJob API group.
type restClient struct {
	c rest.Interface
}

func (r restClient) GetCronJob(ctx context.Context, ns, name string) (*cronjobv1.CronJob, error) {
	return into(r.c.Get().Namespace(ns).Resource("cronjobs").Name(name).Do(ctx), &cronjobv1.CronJob{})
}

func (r restClient) PatchCronJob(ctx context.Context, ns, name string, patch []byte) error {
	return r.c.Patch(types.MergePatchType).Namespace(ns).Resource("cronjobs").Name(name).Body(patch).Do(ctx).Error()
}

func (r restClient) CreateRun(ctx context.Context, run *cronjobv1.CronJobRun) (*cronjobv1.CronJobRun, error) {
	return into(r.c.Post().Namespace(run.Namespace).Resource("cronjobruns").Body(run).Do(ctx), &cronjobv1.CronJobRun{})
}

func (r restClient) GetRun(ctx context.Context, ns, name string) (*cronjobv1.CronJobRun, error) {
	return into(r.c.Get().Namespace(ns).Resource("cronjobruns").Name(name).Do(ctx), &cronjobv1.CronJobRun{})
}

func (r restClient) GetCalendar(ctx context.Context, ns, name string) (*cronjobv1.CronCalendar, error) {
	return into(r.c.Get().Namespace(ns).Resource("croncalendars").Name(name).Do(ctx), &cronjobv1.CronCalendar{})
}

// into returns obj, decoded from the API server's answer, or nil and the request's error.
func into[T runtime.Object](res rest.Result, obj T) (T, error) {
	if err := res.Into(obj); err != nil {
		var none T
		return none, err
	}
	return obj, nil
}
