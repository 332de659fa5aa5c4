/**
 * The request needs a signed-in session: the filter redirects to sign-in with `next`, saying so
 * when the browser's session `ended` (rather than never began).
 */
export class SignInRequired extends Error {
  constructor(
    readonly next?: string,
    readonly ended = false,
  ) {
    super('Sign in to continue.');
  }
}

/** CSRF token missing or wrong, a cross-site request, or a role that may not do this. */
export class DashboardForbidden extends Error {
  constructor(message = 'You cannot do this here.') {
    super(message);
  }
}

/** Sensitive actions need the password entered in the last minutes: the filter asks for it. */
export class PasswordConfirmationRequired extends Error {
  constructor(readonly next: string) {
    super('Confirm your password to continue.');
  }
}

/** A signed-in user whose email is not verified yet: only the verification page is open. */
export class EmailVerificationRequired extends Error {
  constructor() {
    super('Verify your email to continue.');
  }
}
