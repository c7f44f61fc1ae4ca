// Login: POST the password as JSON; the session arrives as an HttpOnly cookie.
const form = /** @type {HTMLFormElement} */ (document.getElementById('login'));
const message = /** @type {HTMLElement} */ (document.getElementById('message'));
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const password = /** @type {HTMLInputElement} */ (document.getElementById('password')).value;
  const res = await fetch('/admin/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password }) });
  if (res.status === 204) {
    location.href = '/admin/';
    return;
  }
  const body = await res.json().catch(() => ({}));
  message.textContent = body?.error?.message ?? `login failed (${res.status})`;
});
