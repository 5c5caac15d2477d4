# versions.sh pins what goes into the kind node image. Sourced by the scripts in hack/kind; each cache key
# takes only the versions its artefact is built from. Kubernetes itself is pinned by hack/tools/kube/go.mod
# (hack/gen-kube-tools-mod.sh); K8S_VERSION must match it.
# shellcheck shell=bash disable=SC2034

K8S_VERSION=1.37.2
KIND_VERSION=v0.33.0         # the kind CLI, and the base image files read from its module
CONTAINERD_VERSION=v2.3.4    # what kind v0.33.0's base image ships
CRICTL_VERSION=v1.37.0
ETCD_VERSION=v3.7.0          # hack/tools/kind-etcd/go.mod; kubeadm v1.37 names registry.k8s.io/etcd:3.7.0-0
COREDNS_VERSION=v1.14.6      # kubeadm v1.37's CoreDNS
PAUSE_TAGS=(3.10.2 3.10)     # kubeadm's pause, and the sandbox image of kind's containerd config
DEBIAN_SUITE=bookworm        # node and kube-proxy root filesystems, from the mirror apt already uses

NODE_IMAGE=cronjob-operator.local/kind-node:v${K8S_VERSION}
BUSYBOX_IMAGE=cronjob-operator.local/busybox:e2e
# ONLINE_NODE_IMAGE is tried first; a machine without a registry builds NODE_IMAGE offline instead.
ONLINE_NODE_IMAGE=kindest/node:v${K8S_VERSION}
