/**
 * Bull settings under which a dead worker's job goes back to the queue within about 1.4 × `lockMs`
 * of its lock's last renewal. Bull frees a job at the second stalled check after the lock ran out,
 * and a check's marker key lives as long as the interval, so a lone worker runs only every other
 * check: the wait past the lock is up to four intervals, hence an interval of a tenth of it.
 */
export function stalledJobSettings(lockMs: number) {
  return {
    lockDuration: lockMs,
    stalledInterval: Math.max(250, Math.round(lockMs / 10)),
    // Quicker than Bull's 5 s to take jobs again after Redis returns.
    retryProcessDelay: 1_000,
  };
}
