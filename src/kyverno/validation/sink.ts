/** Where the checks report: a problem refuses the policy; a `required` finding refuses it in a policy set. */
export interface ProblemSink {
  error(path: string, message: string): void;
  find(path: string, message: string, kind: 'required'): void;
}
