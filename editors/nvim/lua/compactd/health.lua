-- :checkhealth compactd — the binary and its version, the server attached, the version store
-- writable, the agent folders watched. Neovim 0.7–0.9 report through require('health'),
-- 0.10 and later through vim.health.
local M = {}

local function reporter()
  local h = vim.health
  if not (h and h.start) then
    local ok, legacy = pcall(require, 'health')
    h = ok and legacy or {}
  end
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

-- request_sync on every version: a closure up to 0.10, a method from 0.11.
local function request_sync(client, method, params, timeout)
  if vim.fn.has('nvim-0.11') == 1 then return client:request_sync(method, params, timeout, 0) end
  return client.request_sync(method, params, timeout, 0)
end

function M.check()
  local r = reporter()
  local compactd = require('compactd')

  r.start('compactd: binary')
  local cmd = compactd.server_cmd()
  local exe = vim.fn.exepath(cmd[1])
  if exe == '' then
    r.error(("no compactd binary: '%s' is not executable"):format(cmd[1]),
      { 'install compactd on PATH, or pass path = "/path/to/compactd" to require("compactd").setup()' })
  else
    local out = vim.fn.system({ exe, 'version' })
    if vim.v.shell_error == 0 then
      r.ok(('%s: %s'):format(exe, vim.trim(out)))
    else
      r.warn(('%s does not answer `version` (%s): an old build?'):format(exe, vim.trim(out)),
        { 'rebuild compactd (make build) or update it' })
    end
  end

  r.start('compactd: server')
  local client = compactd.client()
  local stopped = client and ((vim.fn.has('nvim-0.11') == 1 and client:is_stopped()) or (vim.fn.has('nvim-0.11') == 0 and client.is_stopped()))
  if not client or stopped then
    r.warn('the server is not running', { 'open an agent transcript (*.jsonl, …): the plugin starts `compactd serve`' })
    return
  end
  -- attached_buffers from 0.8 (get_buffers_by_client_id is deprecated in 0.12).
  local buffers = {}
  if type(client.attached_buffers) == 'table' then
    for b in pairs(client.attached_buffers) do buffers[#buffers + 1] = b end
  else
    buffers = vim.lsp.get_buffers_by_client_id(client.id)
  end
  r.ok(('running (client %d, %s), attached to %d %s'):format(client.id,
    client.server_info and (client.server_info.name .. ' ' .. tostring(client.server_info.version)) or 'compactd',
    #buffers, #buffers == 1 and 'buffer' or 'buffers'))

  local res = request_sync(client, 'compactd/health', vim.empty_dict(), 5000)
  local h = res and res.result
  if type(h) ~= 'table' then
    r.warn('the server does not answer compactd/health: ' .. vim.inspect(res and res.err), { 'update compactd' })
    return
  end

  r.start('compactd: version store')
  local st = h.store or {}
  if not st.path or st.path == '' then
    r.warn('no store: compaction is disabled', { 'set COMPACTD_STORE or XDG_STATE_HOME' })
  elseif st.error and st.error ~= '' then
    r.error(('%s cannot be opened: %s'):format(st.path, st.error), { 'check the folder and its permissions' })
  elseif st.writable then
    r.ok(st.path .. ' (writable)')
  else
    r.error(st.path .. ': its folder is not writable, so no version can be recorded',
      { 'make the folder writable, or point store.path / COMPACTD_STORE elsewhere' })
  end

  r.start('compactd: watched folders')
  for _, f in ipairs(h.folders or {}) do r.info('workspace folder: ' .. f) end
  local watched = 0
  for _, w in ipairs(h.watching or {}) do
    if w.exists and w.watched then
      watched = watched + 1
      r.ok(('%s: %s%s'):format(w.kind, w.dir, w.polled and ' (polled: past the watch limit)' or ''))
    elseif w.exists then
      r.warn(('%s: %s exists but is not watched'):format(w.kind, w.dir), { 'see the server log (:lua vim.lsp.set_log_level("debug"))' })
    else
      r.info(('%s: %s (not there yet; its creation will be seen)'):format(w.kind, w.dir))
    end
  end
  if watched == 0 then
    r.warn('no folder is watched', { 'open a folder with agent transcripts, or enable [watch] in the settings' })
  end
  local wstat = h.watch or {}
  if wstat.limitReached then
    r.warn(('watch limit reached: %d of %d file descriptors; %d folders are polled, %d changing transcripts watched one by one')
      :format(wstat.descriptors or 0, wstat.limit or 0, wstat.polledFolders or 0, wstat.liveFiles or 0),
      { 'changes in polled folders show within seconds; raise the open-file limit (ulimit -n) for more watched folders' })
  elseif (wstat.limit or 0) > 0 then
    r.ok(('watching with %d of %d file descriptors'):format(wstat.descriptors or 0, wstat.limit))
  end
  r.info(('%d transcripts known%s'):format(h.transcripts or 0, h.scanDone and '' or ' (scan still running)'))
end

return M
