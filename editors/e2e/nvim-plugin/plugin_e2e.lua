-- Headless end-to-end test of the compactd Neovim plugin (editors/nvim) against a real
-- `compactd serve`, on Neovim 0.7.2 and later. run.sh sets the environment:
--   COMPACTD_CMD_JSON  server argv as a JSON array (required)
--   E2E_PLUGIN_DIR     the plugin folder (editors/nvim)
--   E2E_FILE           the transcript to open (a copy in a temp workspace; cwd is that workspace)
--   E2E_SETTINGS_JSON  the plugin's `settings` (the compactd section), e.g. a small contextWindow
--   E2E_OUT            result JSON
--   E2E_STATUSLINE_RE  Lua pattern of the gauge in the rendered statusline
--   E2E_HOVER_RE       Lua pattern the hover must contain
--   E2E_PROTOCOL_ONLY=1  stop after the code-action list (for a stand-in server without commands)
--   E2E_TIMEOUT_MS     per-step timeout (default 15000)
-- Exit: 0 pass, 1 a check failed, 2 a step failed (see the JSON for which).
local uv = vim.loop
local t0 = uv.hrtime()
local function ms(since) return math.floor((uv.hrtime() - (since or t0)) / 1e6) end
local timeout = tonumber(os.getenv('E2E_TIMEOUT_MS') or '') or 15000
local out_path = os.getenv('E2E_OUT') or 'nvim-plugin-e2e.json'
local statusline_re = os.getenv('E2E_STATUSLINE_RE') or '%d+k? / %d+k? · %d+ %%'
local hover_re = os.getenv('E2E_HOVER_RE') or '[Tt]okens'
local protocol_only = os.getenv('E2E_PROTOCOL_ONLY') == '1'

local R = { nvim = tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch,
  steps = {}, checks = {}, ok = false }

local function step(name, fn)
  local s = uv.hrtime()
  local ok, val = pcall(fn)
  R.steps[#R.steps + 1] = { name = name, ms = ms(s), ok = ok, err = (not ok) and tostring(val) or nil }
  io.stdout:write(('  step %-28s %5d ms%s\n'):format(name, ms(s), ok and '' or ('  FAILED: ' .. tostring(val))))
  if not ok then error(name .. ': ' .. tostring(val), 0) end
  return val
end

local function check(name, cond, detail)
  R.checks[#R.checks + 1] = { name = name, ok = cond and true or false, detail = detail }
  io.stdout:write(('  [%s] %s%s\n'):format(cond and 'ok' or 'FAIL', name,
    detail ~= nil and (' — ' .. vim.inspect(detail):gsub('%s+', ' '):sub(1, 160)) or ''))
  return cond
end

local function wait_for(what, pred)
  if not vim.wait(timeout, pred, 20) then error('timeout waiting for ' .. what, 0) end
end

local function read_file(path)
  local f = io.open(path, 'rb')
  if not f then return nil end
  local s = f:read('*a')
  f:close()
  return s
end

local function rendered_statusline()
  vim.cmd('redrawstatus')
  return vim.api.nvim_eval_statusline(vim.o.statusline, {}).str
end

local function main()
  local file = vim.fn.fnamemodify(assert(os.getenv('E2E_FILE'), 'E2E_FILE'), ':p')
  local original = assert(read_file(file), 'cannot read ' .. file)
  vim.opt.rtp:prepend((assert(os.getenv('E2E_PLUGIN_DIR'), 'E2E_PLUGIN_DIR')))
  vim.o.laststatus = 2
  vim.o.statusline = "%f %=%{v:lua.require'compactd'.statusline()}"
  local compactd = require('compactd')
  step('setup', function()
    compactd.setup({
      cmd = vim.json.decode((assert(os.getenv('COMPACTD_CMD_JSON'), 'COMPACTD_CMD_JSON'))),
      settings = vim.json.decode(os.getenv('E2E_SETTINGS_JSON') or '{}'),
    })
  end)
  local bufnr = step('open transcript', function()
    vim.cmd('edit ' .. vim.fn.fnameescape(file))
    return vim.api.nvim_get_current_buf()
  end)
  local uri = vim.uri_from_bufnr(bufnr)

  local client = step('plugin started the server', function()
    wait_for('a client attached to the transcript', function()
      local c = compactd.client()
      return c and vim.lsp.buf_is_attached(bufnr, c.id) and c.server_capabilities ~= nil
        and next(c.server_capabilities) ~= nil
    end)
    return compactd.client()
  end)
  R.server_info = client.server_info

  local g = step('gauge notification', function()
    wait_for('compactd/gauge for ' .. uri, function() return compactd.gauge(bufnr) ~= nil end)
    return compactd.gauge(bufnr)
  end)
  R.gauge = g
  check('gauge is for the open transcript', require('compactd.gauge').key(g.uri) == vim.api.nvim_buf_get_name(bufnr), g.uri)
  local sl
  local sl_ok = vim.wait(timeout, function() sl = rendered_statusline(); return sl:find(statusline_re) ~= nil end, 20)
  R.statusline = sl
  check('statusline shows the gauge', sl_ok, sl)

  step('diagnostics', function()
    wait_for('a diagnostic', function() return #vim.diagnostic.get(bufnr) > 0 end)
  end)
  local d = vim.diagnostic.get(bufnr)[1]
  R.diagnostic = { message = d.message, severity = d.severity, source = d.source }
  check('diagnostic is a warning or an error',
    d.severity == vim.diagnostic.severity.WARN or d.severity == vim.diagnostic.severity.ERROR, R.diagnostic)

  local hover = step('hover', function()
    local res = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover',
      { textDocument = { uri = uri }, position = { line = 6, character = 1 } }, timeout)
    local r = res and res[client.id]
    assert(r and not r.err and r.result, 'no hover: ' .. vim.inspect(r))
    local c = r.result.contents
    return type(c) == 'table' and (c.value or vim.inspect(c)) or tostring(c)
  end)
  R.hover = hover
  check('hover shows tokens', hover:find(hover_re) ~= nil, hover)

  local titles = step('code actions', function()
    local diags = {}
    for _, x in ipairs(vim.diagnostic.get(bufnr)) do
      if x.user_data and x.user_data.lsp then diags[#diags + 1] = x.user_data.lsp end
    end
    local res = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', {
      textDocument = { uri = uri },
      range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } },
      context = { diagnostics = diags },
    }, timeout)
    local r = res and res[client.id]
    assert(r and not r.err, 'codeAction failed: ' .. vim.inspect(r))
    local t = {}
    for _, a in ipairs(r.result or {}) do t[#t + 1] = a.title end
    return t
  end)
  R.code_actions = titles
  local joined = table.concat(titles, '|')
  check('code action "Compact conversation"', joined:find('Compact conversation', 1, true) ~= nil, titles)
  check('code action "Dry-run compaction"', joined:find('Dry-run compaction', 1, true) ~= nil, titles)
  if protocol_only then return end

  -- :CompactdContext: the window, every turn and the dry run as a float of text bars.
  local ctx = require('compactd.context')
  ctx.last = nil
  local win = step(':CompactdContext', function()
    vim.cmd('CompactdContext')
    wait_for('the context float with its dry run', function()
      return ctx.last ~= nil and ctx.last.dryRun ~= nil and ctx.state.win ~= nil
        and vim.api.nvim_win_is_valid(ctx.state.win)
        and table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(ctx.state.win), 0, -1, false), '\n'):find('Dry run (', 1, true) ~= nil
    end)
    return ctx.state.win
  end)
  check('the context is a float', vim.api.nvim_win_get_config(win).relative ~= '', vim.api.nvim_win_get_config(win).relative)
  local clines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
  local ctext = table.concat(clines, '\n')
  R.context = clines
  check('the window as one bar', (clines[2] or ''):match('^%[.*%]$') ~= nil, clines[2])
  check('the breakdown names what lies outside the transcript', ctext:find('outside the transcript', 1, true) ~= nil)
  check('tool results by tool', ctext:find('tool results', 1, true) ~= nil)
  local bd = ctx.last.gauge.breakdown
  local sum = 0
  for _, p in ipairs(bd and bd.parts or {}) do sum = sum + p.tokens end
  check('the parts sum to the gauge exactly', bd ~= nil and sum == ctx.last.gauge.tokens, { sum, ctx.last.gauge.tokens })
  local turn_rows = 0
  for _, l in ipairs(clines) do if l:match('^%s+%d+ [█░]') then turn_rows = turn_rows + 1 end end
  check('a bar per turn', turn_rows == #ctx.last.turns and turn_rows > 0, { turn_rows, #ctx.last.turns })
  local removed = 0
  for _, t in ipairs(ctx.last.turns) do removed = removed + (t.removed or 0) end
  check("the dry run's removals are drawn", removed > 0 and ctext:find('░', 1, true) ~= nil, removed)
  check('the dry run line', ctext:find('Dry run %(') ~= nil and ctext:find('window after', 1, true) ~= nil)
  check('the cost', ctext:find('Cost · ', 1, true) ~= nil)
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_feedkeys('q', 'x', false)
  check('q closes the float', not vim.api.nvim_win_is_valid(win))
  vim.cmd('buffer ' .. bufnr)
  local detail = compactd.detail()
  R.detail = detail
  check('detail() gives the breakdown in brief', detail:find('outside', 1, true) ~= nil or detail:find('tool results', 1, true) ~= nil, detail)

  -- :checkhealth compactd: binary and version, server attached, store writable, folders watched.
  local tabs = #vim.api.nvim_list_tabpages()
  local health = step(':checkhealth compactd', function()
    vim.cmd('checkhealth compactd')
    return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  end)
  R.checkhealth = health
  check('health: the binary and its version', health:find('compactd 0%.%d+%.%d+') ~= nil)
  check('health: the server attached', health:find('running (client', 1, true) ~= nil)
  check('health: the store writable', health:find('(writable)', 1, true) ~= nil)
  check('health: the workspace folder watched', health:find('workspace: ', 1, true) ~= nil)
  check('health: no error', health:find('ERROR') == nil)
  if #vim.api.nvim_list_tabpages() > tabs then vim.cmd('tabclose') else vim.cmd('bwipeout') end
  vim.cmd('buffer ' .. bufnr)

  -- :CompactdCompact writes a fork beside the transcript and the server opens it.
  compactd.last_result = nil
  local result = step(':CompactdCompact', function()
    vim.cmd('CompactdCompact')
    wait_for('the compact result', function() return compactd.last_result ~= nil end)
    return compactd.last_result
  end)
  R.compact = result
  check('compact returned a fork path', type(result.forkPath) == 'string' and result.forkPath ~= '', result.forkPath)
  check('the fork exists', vim.fn.filereadable(result.forkPath or '') == 1, result.forkPath)
  check('the original is unchanged', read_file(file) == original)
  check('fewer tokens after', tonumber(result.tokensAfter) and tonumber(result.tokensBefore)
    and result.tokensAfter < result.tokensBefore, { result.tokensBefore, result.tokensAfter })
  local fork_uri = vim.uri_from_fname(vim.fn.fnamemodify(result.forkPath or '', ':p'))
  local fork_gauge
  local fg_ok = vim.wait(timeout, function()
    fork_gauge = require('compactd.gauge').get(fork_uri)
    return fork_gauge ~= nil
  end, 20)
  check('a gauge for the fork', fg_ok, fork_gauge and fork_gauge.text)
  if fg_ok then
    check('the fork gauge is lower', (fork_gauge.tokens or 0) < (g.tokens or 0), { g.tokens, fork_gauge.tokens })
    vim.cmd('buffer ' .. vim.fn.bufnr(result.forkPath))
    local now = rendered_statusline()
    check('statusline shows the fork gauge in its window', now:find(statusline_re) ~= nil and now ~= sl, now)
  end
  vim.cmd('buffer ' .. bufnr)

  local history = step(':CompactdHistory', function()
    compactd.last_history = nil
    vim.cmd('CompactdHistory')
    wait_for('the history', function() return compactd.last_history ~= nil end)
    return compactd.last_history
  end)
  local versions = type(history) == 'table' and history.versions or {}
  check('history lists the new version', #versions >= 1, #versions)
  local found = false
  for _, v in ipairs(versions) do if tostring(compactd.version_id(v)) == tostring(result.version) then found = true end end
  check('history contains version ' .. tostring(result.version), found)
  local hist_lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  check('history buffer shows the version', table.concat(hist_lines, '\n'):find(tostring(result.version), 1, true) ~= nil, hist_lines)
  vim.cmd('close')
  vim.cmd('buffer ' .. bufnr)

  -- :CompactdRecall on a fork's placeholder opens what it replaced, byte for byte.
  local stripped = step(':CompactdCompact strip-tool-results', function()
    compactd.last_result = nil
    vim.cmd('CompactdCompact strip-tool-results')
    wait_for('the compact result', function() return compactd.last_result ~= nil end)
    return compactd.last_result
  end)
  local recalled = step(':CompactdRecall', function()
    vim.cmd('edit ' .. vim.fn.fnameescape(stripped.forkPath))
    local row
    for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
      local s = l:find('recall r%x%x%x%x%x%x')
      if s and l:find('[compacted: ', 1, true) then
        row = i
        vim.api.nvim_win_set_cursor(0, { i, s + 8 })
        break
      end
    end
    if not row then error('the fork names no recall handle', 0) end
    compactd.last_result = nil
    vim.cmd('CompactdRecall')
    wait_for('the recall result', function() return compactd.last_result ~= nil end)
    return compactd.last_result
  end)
  R.recall = recalled
  local content = read_file(recalled.open or '') or ''
  local encoded = vim.fn.json_encode(content)
  check('recall opened the replaced content', #content > 0 and original:find(encoded:sub(2, -2), 1, true) ~= nil, recalled.open)
  check('the recalled file is open in a window', vim.wait(timeout, function() return vim.fn.bufwinnr(recalled.open or '') ~= -1 end, 20), recalled.open)
  vim.cmd('buffer ' .. bufnr)

  -- :CompactdHandoff without an agent offers the ones the binary names (vim.ui.select, stubbed
  -- here to pick Qwen Code) and writes the conversation as a Qwen Code session; :CompactdActions
  -- (the lualine component's click) offers "Continue in another agent…", and the server's
  -- question about compactd's MCP server (window/showMessageRequest, stubbed) is answered.
  check(':CompactdHandoff and :CompactdActions are defined', vim.fn.exists(':CompactdHandoff') == 2 and vim.fn.exists(':CompactdActions') == 2)
  local offered, asked = nil, {}
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    offered = offered or {}
    for _, it in ipairs(items) do
      if type(it) == 'table' and it.name == 'qwen' then offered = items; return on_choice(it) end
      if type(it) == 'table' and it[1] == 'Continue in another agent…' then return on_choice(it) end
    end
    on_choice(nil)
  end
  local ask = vim.lsp.handlers['window/showMessageRequest']
  vim.lsp.handlers['window/showMessageRequest'] = function(_, params)
    asked[#asked + 1] = params.message
    for _, a in ipairs(params.actions or {}) do
      if a.title == 'Continue without it' then return a end
    end
    return vim.NIL
  end
  local handed = step(':CompactdHandoff', function()
    compactd.last_result = nil
    vim.cmd('CompactdHandoff mcp=no')
    wait_for('the handoff result', function() return compactd.last_result ~= nil end)
    return compactd.last_result
  end)
  R.handoff = handed
  check('the agents offered are the binary\'s', type(offered) == 'table' and #offered >= 5, offered)
  check('the handoff wrote a Qwen Code session', handed.to == 'qwen' and type(handed.path) == 'string' and vim.fn.filereadable(handed.path) == 1
    and handed.path:find('/.qwen/projects/', 1, true) ~= nil, handed)
  check('the handoff says how to resume it', type(handed.resume) == 'string' and handed.resume:find('qwen --resume ' .. tostring(handed.session), 1, true) ~= nil, handed.resume)
  vim.cmd('buffer ' .. bufnr)
  local again = step(':CompactdActions → Continue in another agent…', function()
    compactd.last_result = nil
    vim.cmd('CompactdActions')
    wait_for('the second handoff result', function() return compactd.last_result ~= nil end)
    return compactd.last_result
  end)
  vim.ui.select = select
  vim.lsp.handlers['window/showMessageRequest'] = ask
  check('the actions handed off again, a session of its own', again.to == 'qwen' and again.session ~= handed.session and vim.fn.filereadable(again.path or '') == 1, again)
  check('the server asked about its MCP server there', #asked == 1 and asked[1]:find('MCP server in Qwen Code', 1, true) ~= nil, asked)
  vim.cmd('buffer ' .. bufnr)

  -- :CompactdSearch (issue 32): the server's search index finds the conversation by what its
  -- first prompt says; the hit picked (vim.ui.select, stubbed) opens at its line, and with !
  -- the hits fill the quickfix list.
  check(':CompactdSearch is defined', vim.fn.exists(':CompactdSearch') == 2)
  local phrase
  for line in original:gmatch('[^\n]+') do
    local ok, rec = pcall(vim.json.decode, line)
    local text = ok and type(rec) == 'table' and rec.type == 'user' and type(rec.message) == 'table' and rec.message.content or nil
    if type(text) == 'table' then
      text = (type(text[1]) == 'table' and text[1].type == 'text') and text[1].text or nil
    end
    if type(text) == 'string' and not text:find('^%s*<') then
      local words = {}
      for w in text:gmatch('%w+') do
        words[#words + 1] = w
        if #words == 3 then break end
      end
      if #words == 3 then phrase = table.concat(words, ' '); break end
    end
  end
  check('the transcript has a prompt to look for', phrase ~= nil)
  local hit = step('compactd.search finds the conversation', function()
    local got, pending = nil, false
    wait_for('the conversation among the hits', function()
      if got then return true end
      if not pending then
        pending = true
        compactd.search('"' .. phrase .. '"', {}, function(_, r)
          pending = false
          for _, h in ipairs((type(r) == 'table' and r.hits) or {}) do
            if h.path == file then got = h end
          end
        end)
      end
      return false
    end)
    return got
  end)
  R.search = hit
  check('the hit says where and what', hit.role == 'user' and hit.part == 'text' and (tonumber(hit.line) or 0) > 0
    and type(hit.snippet) == 'string' and hit.snippet:find(phrase, 1, true) ~= nil, hit)
  vim.ui.select = function(items, _, on_choice)
    for _, it in ipairs(items) do
      if type(it) == 'table' and it.path == file then return on_choice(it) end
      if type(it) == 'table' and it[1] == 'Open the transcript' then return on_choice(it) end
    end
    on_choice(nil)
  end
  vim.cmd('enew')
  step(':CompactdSearch → open the hit', function()
    vim.cmd('CompactdSearch "' .. phrase .. '"')
    wait_for('the transcript opened at the hit', function() return vim.api.nvim_buf_get_name(0) == file end)
  end)
  check('the transcript opened at the hit\'s line', vim.api.nvim_win_get_cursor(0)[1] == hit.line, vim.api.nvim_win_get_cursor(0))
  vim.ui.select = select
  step(':CompactdSearch! → quickfix', function()
    vim.fn.setqflist({}, 'r')
    vim.cmd('CompactdSearch! "' .. phrase .. '"')
    wait_for('the quickfix list', function() return #vim.fn.getqflist() > 0 end)
  end)
  local qf = vim.fn.getqflist()
  check('the quickfix list names the transcript at the hit\'s line', #qf > 0 and vim.api.nvim_buf_get_name(qf[1].bufnr) == file and qf[1].lnum == hit.line, qf[1])
  vim.cmd('cclose')
  vim.cmd('buffer ' .. bufnr)

  local dry = step(':CompactdDryRun', function()
    compactd.last_result = nil
    vim.cmd('CompactdDryRun')
    wait_for('the dry-run result', function() return compactd.last_result ~= nil end)
    return compactd.last_result
  end)
  R.dry_run = dry
  check('dry run wrote a report', type(dry.reportPath) == 'string' and vim.fn.filereadable(dry.reportPath) == 1, dry.reportPath)
  local report_open = vim.wait(timeout, function() return vim.fn.bufwinnr(dry.reportPath or '') ~= -1 end, 20)
  check('the report is open in a window', report_open, dry.reportPath)
  check('the dry run left the original unchanged', read_file(file) == original)

  -- The agent compacts the conversation on its own (issue 24): a compact_boundary and its
  -- summary appended as Claude Code 2.1.330 writes them. Within 2 s the plugin says what the
  -- agent's summary lost, the boundary's line carries a diagnostic, and both actions run.
  local mark = compactd.mark()
  R.mark = mark
  check("the statusline marks the agent's own compaction", mark:find('^auto ') ~= nil and rendered_statusline():find(mark, 1, true) ~= nil, mark)
  local text = read_file(file)
  local last, nlines = nil, 0
  for line in text:gmatch('[^\n]+') do
    nlines = nlines + 1
    local okj, rec = pcall(vim.json.decode, line)
    if okj and type(rec) == 'table' and type(rec.uuid) == 'string' and type(rec.sessionId) == 'string' then last = rec end
  end
  assert(last, 'no Claude Code record with a uuid in ' .. file)
  local bid, sid = '0c0ffee0-0000-4000-8000-00000000b001', last.sessionId
  local boundary = { parentUuid = vim.NIL, logicalParentUuid = last.uuid, isSidechain = false, userType = 'external',
    cwd = last.cwd, sessionId = sid, version = '2.1.330', type = 'system', subtype = 'compact_boundary',
    content = 'Conversation compacted', level = 'info', uuid = bid, timestamp = '2026-11-26T02:00:00.000Z',
    compactMetadata = { trigger = 'manual', preTokens = g.tokens or 0, postTokens = 900 } }
  local summary = { parentUuid = bid, isSidechain = false, userType = 'external', cwd = last.cwd, sessionId = sid,
    version = '2.1.330', type = 'user', isCompactSummary = true, isVisibleInTranscriptOnly = true,
    uuid = '0c0ffee0-0000-4000-8000-00000000b002', timestamp = '2026-11-26T02:00:01.000Z',
    message = { role = 'user', content = 'This session is being continued from a previous conversation that ran out of context. '
      .. 'The summary below covers the earlier portion of the conversation.\n\nSummary:\n1. Primary Request and Intent: the user asked for help with the project.' } }
  local seen = #compactd.agent_compactions
  local appended = uv.hrtime()
  local fh = assert(io.open(file, 'ab'))
  fh:write(vim.json.encode(boundary) .. '\n' .. vim.json.encode(summary) .. '\n')
  fh:close()
  local note = step('agent compaction announced', function()
    wait_for('compactd/agentCompaction', function() return #compactd.agent_compactions > seen end)
    return compactd.agent_compactions[#compactd.agent_compactions]
  end)
  local took = ms(appended)
  R.agent_compaction = { ms = took, message = note.message }
  check('announced within 2 s of the boundary reaching the file', took <= 2000, took)
  local lost = note.compaction and note.compaction.lost or {}
  check('it names what the summary lost', #lost > 0 and note.message:find(' lost ', 1, true) ~= nil, note.message)
  check('with its two actions', #(note.actions or {}) == 2 and note.actions[1].title == 'Restore from before'
    and note.actions[2].title == 'Re-compact with compactd', note.actions)
  local boundary_line = nlines -- 0-based: the first appended line
  local bdiag
  local bd_ok = vim.wait(timeout, function()
    for _, x in ipairs(vim.diagnostic.get(bufnr)) do
      local lsp = x.user_data and x.user_data.lsp
      if lsp and lsp.code == 'agent-compaction' and x.lnum == boundary_line then bdiag = x; return true end
    end
    return false
  end, 20)
  check("a diagnostic on the boundary's line", bd_ok, bdiag and bdiag.message)
  local label = note.compaction.compaction
  local restored = step('Restore from before ' .. label, function()
    local r
    compactd.agent_action(note, 1, function(err, res) r = err and { err = err } or res end)
    wait_for('the restore', function() return r ~= nil end)
    return r
  end)
  check('Restore from before wrote the conversation before it', type(restored.path) == 'string' and vim.fn.filereadable(restored.path) == 1, restored)
  local recompacted = step('Re-compact with compactd ' .. label, function()
    local r
    compactd.agent_action(note, 2, function(err, res) r = err and { err = err } or res end)
    wait_for('the re-compaction', function() return r ~= nil end)
    return r
  end)
  check('Re-compact with compactd wrote a fork', type(recompacted.forkPath) == 'string' and vim.fn.filereadable(recompacted.forkPath) == 1, recompacted)
  vim.cmd('buffer ' .. bufnr)

  step('shutdown', function()
    local id = client.id
    if vim.fn.has('nvim-0.11') == 1 then client:stop() else vim.lsp.stop_client(id) end
    wait_for('server exit', function() return vim.lsp.get_client_by_id(id) == nil end)
  end)
end

local ok, err = pcall(main)
R.total_ms = ms()
if not ok then R.error = tostring(err); io.stdout:write('error: ' .. tostring(err) .. '\n') end
local all = ok
for _, c in ipairs(R.checks) do if not c.ok then all = false end end
R.ok = all
local f = io.open(out_path, 'w')
if f then f:write(vim.json.encode(R)); f:close() end
io.stdout:write(('nvim-plugin-e2e %s: %s in %d ms (%s)\n'):format(R.nvim, all and 'PASS' or 'FAIL', R.total_ms, out_path))
vim.cmd(all and 'qall!' or (ok and 'cquit 1' or 'cquit 2'))
