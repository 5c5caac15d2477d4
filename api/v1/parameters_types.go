package v1

// Bounds of the parameters of a CronJob (spec.parameters) and the values a CronJobRun gives them
// (spec.parameters of the run).
const (
	// MaxParameters is the most parameters a CronJob declares, and the most values a CronJobRun gives.
	MaxParameters = 20
	// MaxParameterNameLength is the longest parameter name.
	MaxParameterNameLength = 63
	// MaxParameterValueLength is the longest value (a default, an enum item, a run's value), in bytes.
	MaxParameterValueLength = 1024
	// MaxParameterEnum is the most items of a parameter's enum.
	MaxParameterEnum = 50
	// MaxParameterPatternLength is the longest pattern of a parameter, in bytes.
	MaxParameterPatternLength = 1024
	// ReservedParameterPrefix starts no parameter name: environment variables of that prefix are kept for
	// the operator's own.
	ReservedParameterPrefix = "CRONJOB_"
)

// ParametersAnnotation is set on the Job of every run of a CronJob that declares parameters, to the values
// the run got (the CronJobRun's, else the defaults) as a compact JSON object with sorted keys, such as
// {"DATE":"2026-01-01","MODE":"full"}. A CronJob without parameters makes Jobs without it.
const ParametersAnnotation = "batch.cronjob-operator.dev/parameters"

// Parameter is a named input of a CronJob's runs. Each run's Job gets it as the environment variable of
// its name, in every container and init container of the pod template: the value a CronJobRun gives
// (spec.parameters of the run), else the default, which scheduled runs always use. An env entry of the
// same name in a container of the template is replaced (its value or valueFrom), in its place; otherwise
// the variables are appended in the order of spec.parameters. envFrom cannot hide them: explicit env wins
// over envFrom in Kubernetes. The kubelet expands $(NAME) in command, args and later env values, so a
// parameter may be used there. batch/v1 CronJob has no parameters.
// +kubebuilder:validation:XValidation:rule="!has(self.enum) || !has(self.pattern)",message="enum and pattern are mutually exclusive: give the allowed values as enum, or a regular expression as pattern, not both"
// +kubebuilder:validation:XValidation:rule="!has(self.enum) || self.default in self.enum",message="default must be one of enum: scheduled runs use the default, so it must be a value a run may have; add it to enum or change it"
// +kubebuilder:validation:XValidation:rule="!has(self.pattern) || self.default.matches(self.pattern)",message="default must match pattern, an RE2 regular expression matched anywhere in the value unless anchored with ^ and $ (after a regexp parse error, correct the pattern itself): scheduled runs use the default; change the default or the pattern"
type Parameter struct {
	// name is the name of the parameter and of the environment variable the Job's containers get: a C
	// identifier (letters, digits and '_', not starting with a digit), 1 to 63 characters, not starting
	// with CRONJOB_ (reserved for the operator's own variables). Names are unique within the CronJob.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z_][A-Za-z0-9_]*$')",message="name must be a C identifier, the name of an environment variable: letters, digits and '_', not starting with a digit, such as REPORT_DATE"
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('CRONJOB_')",message="names starting with CRONJOB_ are reserved for the operator's own environment variables: choose another name"
	// +required
	Name string `json:"name"`

	// default is the value of the parameter in scheduled runs and in CronJobRuns that give none. It is
	// required, and may be "" (the variable is then set, and empty). It must be one of enum, or match
	// pattern, when those are set. At most 1024 bytes.
	// +kubebuilder:validation:MaxLength=1024
	// +required
	Default string `json:"default"`

	// enum, when set, lists the values a CronJobRun may give, 1 to 50 of at most 1024 bytes each. Not
	// with pattern.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MaxLength=1024
	// +listType=atomic
	// +optional
	Enum []string `json:"enum,omitempty"`

	// pattern, when set, is an RE2 regular expression (https://github.com/google/re2/wiki/Syntax) every
	// value a CronJobRun gives must match. As JSON Schema's pattern and CEL's matches(), it matches
	// anywhere in the value: anchor it with ^ and $ to match the whole value, such as
	// '^\d{4}-\d{2}-\d{2}$'. A pattern that does not compile is refused by the CRD: its rule that the
	// default matches the pattern fails, with the regexp's parse error. At most 1024 bytes. Not with enum.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Pattern *string `json:"pattern,omitempty"`

	// description says what the parameter is for, for people; the controller does not read it. At most
	// 1024 bytes.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Description string `json:"description,omitempty"`
}

// ParameterValue is the value a CronJobRun gives one of its CronJob's parameters.
type ParameterValue struct {
	// name is the name of a parameter the CronJob declares (spec.parameters of the CronJob).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +required
	Name string `json:"name"`

	// value is the parameter's value for this run, at most 1024 bytes: one of the parameter's enum, or
	// matching its pattern, when those are set. It may be "".
	// +kubebuilder:validation:MaxLength=1024
	// +required
	Value string `json:"value"`
}
