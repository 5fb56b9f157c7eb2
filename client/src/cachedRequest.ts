/**
 * The result of one server request, fetched when a view first asks for it and
 * kept until `invalidate()`; concurrent asks share one request, and a failed
 * request keeps its message in `error` and is retried on the next ask. Used by
 * the tree views whose content comes from a single `braid/...` request.
 */
export class CachedRequest<R> {
  private result: R | undefined;
  private loading: Promise<R | undefined> | undefined;
  private stale = true;
  /** the last request's error message, if it failed */
  error: string | undefined;

  constructor(private readonly send: () => Promise<R>) {}

  invalidate(): void {
    this.stale = true;
  }

  get(): Promise<R | undefined> {
    if (!this.stale && this.result) return Promise.resolve(this.result);
    if (this.loading) return this.loading;
    this.stale = false;
    this.loading = this.send()
      .then((r) => {
        this.error = undefined;
        return (this.result = r);
      })
      .catch((err) => {
        this.error = (err as Error)?.message ?? String(err);
        this.stale = true;
        return undefined;
      })
      .finally(() => (this.loading = undefined));
    return this.loading;
  }
}
