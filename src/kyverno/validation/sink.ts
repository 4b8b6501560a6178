/** Where the checks report: a problem refuses the policy; a finding refuses it in a policy set (AdmissionFinding). */
export interface ProblemSink {
  error(path: string, message: string): void;
  find(path: string, message: string, kind: 'required' | 'expression' | 'variable'): void;
  /** Whether a finding of `kind` was already made at `path` (one cause is reported once). */
  hasFinding(path: string, kind: 'expression'): boolean;
}
