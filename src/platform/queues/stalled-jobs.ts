/**
 * Bull settings under which a dead worker's job goes back to the queue about `lockMs` after its
 * lock was last renewed. Bull frees a job at the second stalled check after the lock ran out, and
 * a check's marker key lives as long as the interval, so a lone worker runs only every other
 * check: with the interval as long as the lock, a job came back after 1.5 to 4 locks (91–115 s
 * for a 30 s import lease). A tenth of the lock bounds it at about 1.4 locks.
 */
export function stalledJobSettings(lockMs: number) {
  return {
    lockDuration: lockMs,
    stalledInterval: Math.max(250, Math.round(lockMs / 10)),
    // Quicker than Bull's 5 s to take jobs again after Redis returns.
    retryProcessDelay: 1_000,
  };
}
