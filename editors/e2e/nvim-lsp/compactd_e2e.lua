-- Headless Neovim (0.7.2+) end-to-end test of `compactd serve` through vim.lsp.
-- Run by run.sh:  nvim --headless -u NONE -i NONE -n -c 'luafile compactd_e2e.lua'
-- Env: COMPACTD_CMD_JSON (server argv), E2E_WS (workspace dir holding session.jsonl),
--      E2E_APPEND (lines the "agent" appends), E2E_TIMEOUT_MS (default 10000).
-- Exit: 0 pass, 1 a check failed, 2 aborted (:cquit N; `nvim -l` hangs on 0.7.2).
local uv = vim.loop
local timeout = tonumber(os.getenv('E2E_TIMEOUT_MS') or '') or 10000
local ws = assert(os.getenv('E2E_WS'), 'E2E_WS')
local file = ws .. '/session.jsonl'
local cmd = vim.json.decode((assert(os.getenv('COMPACTD_CMD_JSON'), 'COMPACTD_CMD_JSON')))

local seen = { gauges = {}, diags = {}, progress = {}, created = {}, messages = {} }
local failures, checks = 0, {}
local function check(name, cond, detail)
  checks[#checks + 1] = ('  [%s] %s%s'):format(cond and 'ok' or 'FAIL', name, cond and '' or (' — ' .. vim.inspect(detail)))
  if not cond then failures = failures + 1 end
  return cond
end
local function wait_for(what, pred)
  if not vim.wait(timeout, pred, 10) then error('timeout waiting for ' .. what, 0) end
end
local function gauges_of(uri)
  local out = {}
  for _, g in ipairs(seen.gauges) do if g.uri == uri and not g.removed then out[#out + 1] = g end end
  return out
end

local function main()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_fname(file)
  local D = vim.lsp.handlers
  local exited, exit_code, initialized = false, nil, false
  local id = vim.lsp.start_client({
    name = 'compactd', cmd = cmd, root_dir = ws,
    init_options = { compactd = { gauge = { contextWindow = 20000 } } },
    handlers = {
      ['compactd/gauge'] = function(_, result) seen.gauges[#seen.gauges + 1] = result end,
      ['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
        seen.diags[#seen.diags + 1] = result
        return D['textDocument/publishDiagnostics'](err, result, ctx, config)
      end,
      ['$/progress'] = function(err, result, ctx, config)
        seen.progress[#seen.progress + 1] = result
        return D['$/progress'](err, result, ctx, config)
      end,
      ['window/workDoneProgress/create'] = function(err, result, ctx, config)
        seen.created[#seen.created + 1] = result.token
        return D['window/workDoneProgress/create'](err, result, ctx, config)
      end,
      ['window/showMessage'] = function(_, result) seen.messages[#seen.messages + 1] = result.message end,
      ['window/logMessage'] = function() end,
    },
    on_init = function() initialized = true end,
    on_exit = function(code) exited, exit_code = true, code end,
  })
  assert(id, 'could not start the server')
  vim.lsp.buf_attach_client(bufnr, id)
  wait_for('initialize', function() return initialized end)

  wait_for('compactd/gauge', function() return #gauges_of(uri) > 0 end)
  local g = gauges_of(uri)[1]
  check('gauge: claude-code, window 20k, critical', g.format == 'claude-code' and g.contextWindow == 20000 and g.level == 'critical', g)
  check('gauge text', type(g.text) == 'string' and g.text:find('/ 20k') ~= nil, g.text)

  wait_for('diagnostic', function() return #vim.diagnostic.get(bufnr) > 0 end)
  local d = vim.diagnostic.get(bufnr)[1]
  check('diagnostic from compactd, error severity', d.source == 'compactd' and d.severity == vim.diagnostic.severity.ERROR, d)

  local last = vim.api.nvim_buf_line_count(bufnr) - 2
  local hv = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', { textDocument = { uri = uri }, position = { line = last, character = 0 } }, timeout)
  local text = hv and hv[id] and hv[id].result and hv[id].result.contents.value or ''
  check('hover names the turn', text:find('turn %d+ of %d+') ~= nil, text)

  local lsp_diags = {}
  for _, x in ipairs(vim.diagnostic.get(bufnr)) do lsp_diags[#lsp_diags + 1] = x.user_data and x.user_data.lsp end
  local ca = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', {
    textDocument = { uri = uri }, range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } },
    context = { diagnostics = lsp_diags },
  }, timeout)
  local actions = ca and ca[id] and ca[id].result or {}
  local compact
  for _, a in ipairs(actions) do if a.title == 'Compact conversation' then compact = a end end
  check('"Compact conversation" offered', compact ~= nil, actions)
  if compact then
    local res = vim.lsp.buf_request_sync(bufnr, 'workspace/executeCommand', compact.command, timeout * 3)
    local r = res and res[id]
    check('compact answered', r and r.result and r.result.command == 'compactd.compact', r)
    local token = seen.created[#seen.created]
    local kinds = {}
    for _, p in ipairs(seen.progress) do if p.token == token then kinds[#kinds + 1] = p.value.kind end end
    check('progress begin … end', kinds[1] == 'begin' and kinds[#kinds] == 'end', kinds)
    local said = false
    for _, m in ipairs(seen.messages) do said = said or m:find('compacted') ~= nil end
    check('showMessage announces the compaction', said, seen.messages)
  end

  local before = gauges_of(uri)
  local turns = before[#before].turns
  local chunk = assert(io.open(assert(os.getenv('E2E_APPEND')), 'rb')):read('*a')
  local f = assert(io.open(file, 'ab'))
  f:write(chunk)
  f:close()
  local t0 = uv.hrtime()
  wait_for('gauge after append', function()
    for _, x in ipairs(gauges_of(uri)) do if x.turns > turns then return true end end
    return false
  end)
  checks[#checks + 1] = ('  append → gauge in %d ms'):format((uv.hrtime() - t0) / 1e6)

  vim.lsp.stop_client(id) -- 0.7: client:stop() would force-kill
  wait_for('server exit', function() return exited end)
  check('server exited 0 after shutdown/exit', exit_code == 0, exit_code)
end

local ok, err = pcall(main)
io.stdout:write(table.concat(checks, '\n') .. '\n')
if not ok then
  io.stdout:write('nvim-lsp e2e: ABORTED: ' .. tostring(err) .. '\n')
  vim.cmd('cquit 2')
elseif failures > 0 then
  io.stdout:write(('nvim-lsp e2e: FAIL (%d checks)\n'):format(failures))
  vim.cmd('cquit 1')
else
  io.stdout:write('nvim-lsp e2e: PASS\n')
  vim.cmd('qall!')
end
