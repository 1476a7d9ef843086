// The session list page: GET /api/sessions every 2 s; each row links to the session's viewer
// (which asks for the viewer token when its URL fragment has none).
const body = document.getElementById('sessions');
const status = document.getElementById('list-status');

function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text;
  row.appendChild(td);
  return td;
}

async function refresh() {
  try {
    const response = await fetch('/api/sessions', { cache: 'no-store' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const { sessions } = await response.json();
    body.replaceChildren();
    for (const s of sessions) {
      const row = document.createElement('tr');
      const link = document.createElement('a');
      link.href = `/view#session=${encodeURIComponent(s.id)}`;
      link.textContent = s.id;
      cell(row, '').appendChild(link);
      cell(row, s.name);
      cell(row, s.pipeline);
      const state = cell(row, s.state === 'FAILED' ? `FAILED: ${s.failure}` : s.state);
      if (s.state === 'FAILED') state.className = 'failed';
      cell(row, String(s.step_count));
      cell(row, s.time_s.toFixed(3));
      cell(row, String(s.num_bodies));
      body.appendChild(row);
    }
    status.textContent = `${sessions.length} session(s)`;
  } catch (error) {
    status.textContent = `cannot reach the server: ${error.message}`;
  }
}

refresh();
setInterval(refresh, 2000);
