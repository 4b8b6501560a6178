/**
 * Built-in kinds a paramKind may name, with their scope (namespaced unless listed as cluster-scoped).
 * A fact table from the Kubernetes API (1.36/1.37); CRDs from the policy sources add theirs.
 */

const CLUSTER_SCOPED: Record<string, readonly string[]> = {
  '': ['ComponentStatus', 'Namespace', 'Node', 'PersistentVolume'],
  'admissionregistration.k8s.io': [
    'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding', 'MutatingWebhookConfiguration',
    'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'ValidatingWebhookConfiguration',
  ],
  'apiextensions.k8s.io': ['CustomResourceDefinition'],
  'apiregistration.k8s.io': ['APIService'],
  'authentication.k8s.io': ['SelfSubjectReview', 'TokenReview'],
  'authorization.k8s.io': ['SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview'],
  'certificates.k8s.io': ['CertificateSigningRequest', 'ClusterTrustBundle'],
  'flowcontrol.apiserver.k8s.io': ['FlowSchema', 'PriorityLevelConfiguration'],
  'internal.apiserver.k8s.io': ['StorageVersion'],
  'networking.k8s.io': ['IPAddress', 'IngressClass', 'ServiceCIDR'],
  'node.k8s.io': ['RuntimeClass'],
  'rbac.authorization.k8s.io': ['ClusterRole', 'ClusterRoleBinding'],
  'resource.k8s.io': ['DeviceClass', 'DeviceTaintRule', 'ResourcePoolStatusRequest', 'ResourceSlice'],
  'scheduling.k8s.io': ['PriorityClass'],
  'storage.k8s.io': ['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment', 'VolumeAttributesClass'],
  'storagemigration.k8s.io': ['StorageVersionMigration'],
};

const NAMESPACED: Record<string, readonly string[]> = {
  '': [
    'Binding', 'ConfigMap', 'Endpoints', 'Event', 'LimitRange', 'PersistentVolumeClaim', 'Pod', 'PodTemplate',
    'ReplicationController', 'ResourceQuota', 'Secret', 'Service', 'ServiceAccount',
  ],
  apps: ['ControllerRevision', 'DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet'],
  'authentication.k8s.io': ['TokenRequest'],
  'authorization.k8s.io': ['LocalSubjectAccessReview'],
  autoscaling: ['HorizontalPodAutoscaler', 'Scale'],
  batch: ['CronJob', 'Job'],
  'certificates.k8s.io': ['PodCertificateRequest'],
  'coordination.k8s.io': ['Lease', 'LeaseCandidate'],
  'discovery.k8s.io': ['EndpointSlice'],
  'events.k8s.io': ['Event'],
  'lifecycle.k8s.io': ['Eviction', 'EvictionRequest'],
  'networking.k8s.io': ['Ingress', 'NetworkPolicy'],
  policy: ['Eviction', 'PodDisruptionBudget'],
  'rbac.authorization.k8s.io': ['Role', 'RoleBinding'],
  'resource.k8s.io': ['ResourceClaim', 'ResourceClaimTemplate'],
  'scheduling.k8s.io': ['CompositePodGroup', 'PodGroup', 'Workload'],
  'storage.k8s.io': ['CSIStorageCapacity'],
};

export type Scope = 'Namespaced' | 'Cluster';

/** The scope of a built-in kind, or undefined when (group, kind) is not a built-in kind. */
export function builtinScope(group: string, kind: string): Scope | undefined {
  // Own groups only: a group named `constructor` or `__proto__` is no built-in group.
  if (Object.hasOwn(CLUSTER_SCOPED, group) && CLUSTER_SCOPED[group].includes(kind)) return 'Cluster';
  if (Object.hasOwn(NAMESPACED, group) && NAMESPACED[group].includes(kind)) return 'Namespaced';
  return undefined;
}

/**
 * Groups served by kube-apiserver itself: the core group, unqualified names and `*.k8s.io`. Objects of
 * these groups reach admission as typed objects (CEL sees params of these kinds without TypeMeta).
 */
export function isBuiltinGroup(group: string): boolean {
  return group === '' || !group.includes('.') || group === 'k8s.io' || group.endsWith('.k8s.io');
}
