package main

// valuesSchema is the chart's values.schema.json (JSON Schema draft 7), which Helm checks the values against
// on install, upgrade, template and lint. Every object of the chart's own is closed (additionalProperties
// false), so a misspelt key (replica for replicas) is refused with its path instead of being ignored; the
// values that are Kubernetes types (resources, affinity, tolerations, ...) are checked by the API server.
// TestSchemaCoversValues keeps it and values.yaml key for key.
const valuesSchema = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "title": "Values of the cronjob-operator chart",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "fullnameOverride": {
      "description": "The prefix of every name the release gives; at most 27 characters, a DNS label.",
      "type": "string", "maxLength": 27, "pattern": "^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$"
    },
    "image": {
      "type": "object", "additionalProperties": false, "required": ["repository", "tag"],
      "properties": {
        "repository": {"type": "string", "minLength": 1},
        "tag": {"type": "string", "minLength": 1},
        "pullPolicy": {"type": "string", "enum": ["", "Always", "IfNotPresent", "Never"]}
      }
    },
    "replicas": {"type": "integer", "minimum": 0},
    "resources": {"type": "object"},
    "imagePullSecrets": {
      "type": "array",
      "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 1}}}
    },
    "podLabels": {"$ref": "#/definitions/stringMap"},
    "podAnnotations": {"$ref": "#/definitions/stringMap"},
    "affinity": {"type": "object"},
    "nodeSelector": {"$ref": "#/definitions/stringMap"},
    "tolerations": {"type": "array", "items": {"type": "object"}},
    "topologySpreadConstraints": {"type": "array", "items": {"type": "object"}},
    "priorityClassName": {"type": "string"},
    "leaderElection": {"$ref": "#/definitions/enabled"},
    "crd": {
      "type": "object", "additionalProperties": false,
      "properties": {"enabled": {"type": "boolean"}, "keep": {"type": "boolean"}}
    },
    "webhooks": {"$ref": "#/definitions/enabled"},
    "certManager": {
      "type": "object", "additionalProperties": false,
      "properties": {
        "enabled": {"type": "boolean"},
        "issuerRef": {
          "description": "An Issuer of the release's namespace or a ClusterIssuer; empty for the chart's own.",
          "type": "object", "additionalProperties": false,
          "properties": {
            "name": {"type": "string"},
            "kind": {"type": "string", "enum": ["Issuer", "ClusterIssuer"]},
            "group": {"type": "string"}
          }
        }
      }
    },
    "metrics": {
      "type": "object", "additionalProperties": false,
      "properties": {
        "enabled": {"type": "boolean"},
        "certSecretName": {"type": "string"},
        "serviceMonitor": {
          "type": "object", "additionalProperties": false,
          "properties": {
            "enabled": {"type": "boolean"},
            "labels": {"$ref": "#/definitions/stringMap"},
            "interval": {"type": "string", "pattern": "^(([0-9]+(ms|s|m|h))+)?$"},
            "authorization": {
              "type": "object", "additionalProperties": false,
              "properties": {"secretName": {"type": "string"}, "key": {"type": "string", "minLength": 1}}
            },
            "tlsConfig": {"type": "object"}
          }
        }
      }
    },
    "prometheusRule": {
      "type": "object", "additionalProperties": false,
      "properties": {"enabled": {"type": "boolean"}, "labels": {"$ref": "#/definitions/stringMap"}}
    },
    "dashboard": {
      "type": "object", "additionalProperties": false,
      "properties": {
        "enabled": {"type": "boolean"},
        "labels": {"$ref": "#/definitions/stringMap"},
        "annotations": {"$ref": "#/definitions/stringMap"}
      }
    },
    "networkPolicy": {"$ref": "#/definitions/enabled"},
    "podDisruptionBudget": {"$ref": "#/definitions/enabled"},
    "policies": {
      "type": "object", "additionalProperties": false,
      "properties": {"manualRuns": {"$ref": "#/definitions/enabled"}, "managerJobs": {"$ref": "#/definitions/enabled"}}
    },
    "flowControl": {"$ref": "#/definitions/enabled"},
    "enableHTTP2": {"type": "boolean"},
    "watchNamespaces": {
      "type": "array", "uniqueItems": true,
      "items": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "maxLength": 63}
    },
    "extraArgs": {"type": "array", "items": {"type": "string", "pattern": "^--"}}
  },
  "definitions": {
    "enabled": {"type": "object", "additionalProperties": false, "properties": {"enabled": {"type": "boolean"}}},
    "stringMap": {"type": "object", "additionalProperties": {"type": "string"}}
  }
}
`
