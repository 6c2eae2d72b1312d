import './styles.css';

/** The sign-in page says why it is shown; the reasons are fixed words, never text from the URL. */
const REASONS: Record<string, string> = {
  expired: 'That sign-in link was used already or has expired. Ask for a new one.',
  'signed-out': 'You are signed out.',
  'session-ended': 'Your session has ended. Sign in again.',
};
const reason = new URLSearchParams(location.search).get('reason');
const element = document.getElementById('reason');
if (element && reason && Object.hasOwn(REASONS, reason)) {
  element.textContent = REASONS[reason]!;
  element.hidden = false;
}
