-- compactd for Neovim: starts `compactd serve` for agent transcripts, shows the token gauge of
-- the conversation in the status line and wraps the server's commands (compact, dry run,
-- history, restore, diff). Works on Neovim 0.7.2 and later; see :help compactd.
local gauge = require('compactd.gauge')

local M = {}

local defaults = {
  path = nil,         -- the compactd binary; default $COMPACTD_PATH, else <repo>/bin/compactd
                      -- (a plugin manager's build step), else `compactd` on PATH
  cmd = nil,          -- full server argv; default { path, 'serve' }
  patterns = nil,     -- autocmd patterns replacing the server's (compactd editor-info)
  extra_patterns = {}, -- added to the patterns
  settings = {},      -- the `compactd` settings section: gauge, compact, watch, log, store
  root_dir = nil,     -- string or function(bufnr) -> string; default the current directory
  handlers = {},      -- extra LSP handlers, merged over the plugin's own
  on_attach = nil,    -- function(client, bufnr)
  open_results = true, -- open the fork / dry-run report when the server did not
  autostart = true,
}

local config = vim.deepcopy(defaults)
local client_id
local augroup
local warned_missing = false

local has_011 = vim.fn.has('nvim-0.11') == 1

local function notify(msg, level)
  vim.notify('compactd: ' .. msg, level or vim.log.levels.INFO)
end

-- Client methods are closures up to 0.10 and take self from 0.11 (0.12 warns on the old form).
local function client_request(client, method, params, handler, bufnr)
  if has_011 then return client:request(method, params, handler, bufnr) end
  return client.request(method, params, handler, bufnr)
end

-- _request(client, method, params, handler): a request on every Neovim version (for the
-- plugin's other modules).
M._request = client_request

local function client_stopped(client)
  if has_011 then return client:is_stopped() end
  return client.is_stopped()
end

local function client_notify(client, method, params)
  if has_011 then return client:notify(method, params) end
  return client.notify(method, params)
end

-- The binary a plugin manager's build step made in this repository (vim.pack's PackChanged
-- autocommand or lazy.nvim's build: go build -o bin/ ./cmd/compactd): <repo>/bin/compactd[.exe], the repo being three
-- folders above this file (editors/nvim/lua/compactd/init.lua). nil when there is none.
function M.built_binary()
  local src = debug.getinfo(1, 'S').source
  if src:sub(1, 1) ~= '@' then return nil end
  local repo = vim.fn.fnamemodify(src:sub(2), ':p:h:h:h:h:h')
  local exe = vim.fn.has('win32') == 1 and 'compactd.exe' or 'compactd'
  local path = repo .. '/bin/' .. exe
  if vim.fn.executable(path) == 1 then return path end
  return nil
end

-- server_cmd: setup's cmd, else { binary, 'serve' } with the binary from setup's path, else
-- $COMPACTD_PATH, else the one built in this repository, else `compactd` on PATH.
function M.server_cmd()
  if config.cmd then return config.cmd end
  local path = config.path or os.getenv('COMPACTD_PATH')
  if not path or path == '' then path = M.built_binary() or 'compactd' end
  return { path, 'serve' }
end

local editor_info

-- info(): what the server owns and the plugin needs before it starts it (`compactd
-- editor-info`): documentPatterns (doublestar globs), recallHandle and recallMark (regular
-- expressions), recallSyntax. nil and why when the binary cannot say. Asked once.
function M.info()
  if editor_info then return editor_info end
  local bin = M.server_cmd()[1]
  if vim.fn.executable(bin) ~= 1 then return nil, ("no server binary '%s' found"):format(bin) end
  local out = vim.fn.system({ bin, 'editor-info' })
  if vim.v.shell_error ~= 0 then return nil, ("'%s editor-info' failed: %s"):format(bin, vim.trim(out)) end
  local ok, info = pcall(vim.fn.json_decode, out)
  if not ok or type(info) ~= 'table' or type(info.documentPatterns) ~= 'table' or type(info.recallMark) ~= 'string' then
    return nil, ("'%s editor-info' printed what the plugin cannot read"):format(bin)
  end
  editor_info = info
  return info
end

-- autocmd_pattern(glob): a doublestar glob as an autocmd pattern, where '*' also matches '/'
-- and a pattern without '/' matches the file's name.
function M.autocmd_pattern(glob)
  local p = glob:gsub('^%*%*/', ''):gsub('%*%*', '*')
  if p:find('/', 1, true) then p = '*/' .. p end
  return p
end

-- patterns(): the transcript files the client attaches to (autocmd patterns): setup's
-- patterns, else the server's, and setup's extra_patterns. nil and why when the server
-- cannot say.
function M.patterns()
  local list = config.patterns and vim.deepcopy(config.patterns)
  if not list then
    local info, err = M.info()
    if not info then return nil, err end
    list = vim.tbl_map(M.autocmd_pattern, info.documentPatterns)
  end
  vim.list_extend(list, config.extra_patterns or {})
  return list
end

-- vim_regex(re): one of the server's regular expressions (classes, counts, groups and \b at
-- its ends) as a very magic Vim regex.
local function vim_regex(re)
  re = re:gsub('^\\b', '<'):gsub('\\b$', '>')
  return vim.regex('\\v' .. re)
end

function M.client()
  return client_id and vim.lsp.get_client_by_id(client_id) or nil
end

local function refresh_status()
  vim.cmd('redrawstatus!')
  pcall(vim.cmd, 'doautocmd <nomodeline> User CompactdGauge')
end

-- window/showDocument: the server opens the fork or the dry-run report this way
-- (0.7 has no handler for it; one behaviour on every version).
local function show_document(_, params)
  if type(params) ~= 'table' or type(params.uri) ~= 'string' or params.external then
    return { success = false }
  end
  local ok = pcall(function()
    local fname = vim.uri_to_fname(params.uri)
    if params.takeFocus == false then
      vim.fn.bufadd(fname)
    elseif fname:match('%.md$') then
      vim.cmd('split ' .. vim.fn.fnameescape(fname))
    else
      vim.cmd('edit ' .. vim.fn.fnameescape(fname))
    end
  end)
  return { success = ok }
end

local function handlers()
  local default_progress = vim.lsp.handlers['$/progress']
  local h = {
    ['compactd/gauge'] = function(_, result)
      gauge.update(result)
      refresh_status()
    end,
    ['$/progress'] = function(err, result, ctx, cfg)
      if type(result) == 'table' then gauge.progress_update(result.token, result.value) end
      vim.cmd('redrawstatus!')
      if default_progress then return default_progress(err, result, ctx, cfg) end
    end,
    ['window/showDocument'] = show_document,
    -- The agent compacted a watched conversation on its own: say what its summary lost, and
    -- how to get it back (the notification's two actions are :CompactdRestoreBeforeAgent and
    -- :CompactdRecompactAgent with its version).
    ['compactd/agentCompaction'] = function(_, note)
      if type(note) ~= 'table' or type(note.compaction) ~= 'table' then return end
      M.agent_compactions[#M.agent_compactions + 1] = note
      local v = tostring(note.compaction.compaction or '')
      local level = (type(note.health) == 'table' and note.health.loop) and vim.log.levels.WARN or vim.log.levels.INFO
      notify(('%s\n  :CompactdRestoreBeforeAgent %s  (Restore from before) · :CompactdRecompactAgent %s  (Re-compact with compactd)')
        :format(tostring(note.message or ''), v, v), level)
      vim.cmd('redrawstatus!')
    end,
  }
  return vim.tbl_extend('force', h, config.handlers or {})
end

local function root_dir(bufnr)
  if type(config.root_dir) == 'function' then return config.root_dir(bufnr) end
  return config.root_dir or vim.fn.getcwd()
end

-- The settings as the server reads them: the camelCase mirror of .compactd.toml
-- ({gauge = {warn, contextWindow, ...}, compact = {...}, ...}). The server rejects unknown keys,
-- so nothing else goes in.
function M.server_settings(settings)
  -- An empty Lua table encodes as a JSON array ([]), which the server refuses as settings.
  if settings == nil or next(settings) == nil then return vim.empty_dict() end
  return vim.deepcopy(settings)
end

-- The client's capabilities, plus window/showDocument, which this plugin handles itself:
-- Neovim only advertises it from 0.10, and the server opens forks and reports only for
-- clients that do.
local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.window = caps.window or {}
  caps.window.showDocument = { support = true }
  -- The plugin shows compactd/agentCompaction itself (the server then sends no
  -- window/showMessageRequest for it, whose default handler would block on inputlist()).
  caps.experimental = vim.tbl_deep_extend('force', caps.experimental or {}, { compactd = { agentCompaction = true } })
  return vim.tbl_deep_extend('force', caps, config.capabilities or {})
end

local function client_config(bufnr)
  local settings = M.server_settings(config.settings)
  return {
    name = 'compactd',
    cmd = M.server_cmd(),
    capabilities = capabilities(),
    root_dir = root_dir(bufnr),
    init_options = settings,
    settings = { compactd = settings },
    handlers = handlers(),
    on_attach = config.on_attach,
    on_init = function(client)
      -- Gauges of conversations the server already watches (not only open buffers).
      client_request(client, 'compactd/gauges', vim.empty_dict(), function(err, result)
        if not err and type(result) == 'table' then
          gauge.set_all(result)
          refresh_status()
        end
      end)
    end,
    on_exit = function() client_id = nil end,
  }
end

-- attach(bufnr): starts the server when needed and attaches it to the buffer. One client
-- serves every transcript: the daemon keeps all conversations, not one per root.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = M.client()
  if client and not client_stopped(client) then
    vim.lsp.buf_attach_client(bufnr, client.id)
    return client.id
  end
  local cmd = M.server_cmd()
  if vim.fn.executable(cmd[1]) ~= 1 then
    if not warned_missing then
      warned_missing = true
      notify(("no server binary '%s' found: install compactd on PATH or pass path= to require('compactd').setup()")
        :format(cmd[1]), vim.log.levels.ERROR)
    end
    return nil
  end
  local cfg = client_config(bufnr)
  if vim.lsp.start then
    client_id = vim.lsp.start(cfg, { bufnr = bufnr })
  else
    client_id = vim.lsp.start_client(cfg)
    if client_id then vim.lsp.buf_attach_client(bufnr, client_id) end
  end
  return client_id
end

-- The conversation a command acts on: the current buffer when it is a transcript the
-- server knows, else the active conversation.
function M.current_uri()
  local name = vim.api.nvim_buf_get_name(0)
  if name ~= '' then
    local uri = vim.uri_from_fname(name)
    local client = M.client()
    if gauge.get(uri) or (client and vim.lsp.buf_is_attached(0, client.id)) then return uri end
  end
  local g = gauge.for_buffer(0)
  return g and g.uri or nil
end

-- unwrap_result: the server answers a command as {command, uri, message, open, result = {...}}
-- (open: the URI of what it produced); callers get the result with the message and the
-- opened file's path beside its own fields.
function M.unwrap_result(r)
  if type(r) == 'table' and r.command ~= nil and type(r.result) == 'table' then
    local inner = vim.deepcopy(r.result)
    inner.message = r.message
    inner.open = type(r.open) == 'string' and vim.uri_to_fname(r.open) or nil
    return inner
  end
  return r
end

-- version_id: a history entry's label (lsp/testdata/commands/compactd.history.json).
function M.version_id(v)
  if type(v) ~= 'table' then return nil end
  return v.version
end

-- execute(command, args, callback): runs a compactd.* command on the server with one
-- argument object; callback(err, result). The uri defaults to current_uri().
function M.execute(command, args, callback)
  local client = M.client()
  if not client then
    notify('the server is not running (open a transcript first)', vim.log.levels.ERROR)
    return false
  end
  args = vim.deepcopy(args or {})
  args.uri = args.uri or M.current_uri()
  if not args.uri then
    notify('no conversation: open a transcript first', vim.log.levels.ERROR)
    return false
  end
  client_request(client, 'workspace/executeCommand', { command = command, arguments = { args } },
    function(err, result)
      result = M.unwrap_result(result)
      if err then
        notify(('%s failed: %s'):format(command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
      end
      if callback then callback(err, result) end
    end)
  return true
end

local function open_file(path, split)
  if not config.open_results or type(path) ~= 'string' or path == '' then return end
  if vim.fn.filereadable(path) ~= 1 then return end
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)) == vim.fn.fnamemodify(path, ':p') then return end
  end
  vim.cmd((split and 'split ' or 'edit ') .. vim.fn.fnameescape(path))
end

-- Parses command arguments: words are strategies, keepLast=N sets keepLast,
-- turns=N how many turns turn-window keeps, budget=N the tokens the result fits in.
local function compact_args(fargs)
  local args, strategies = {}, {}
  for _, a in ipairs(fargs or {}) do
    local n = a:match('^keepLast=(%d+)$') or a:match('^keep_last=(%d+)$')
    local turns = a:match('^turns=(%d+)$')
    local budget = a:match('^budget=(%d+)$')
    if n then args.keepLast = tonumber(n)
    elseif turns then args.turns = tonumber(turns)
    elseif budget then args.budget = tonumber(budget)
    else strategies[#strategies + 1] = a end
  end
  if #strategies > 0 then args.strategies = strategies end
  return args
end

-- compact_to_fit(args): asks for a budget (suggesting args.budget, the dry run's knee when
-- the server knows it) and compacts the conversation to fit it. The "Compact to fit…" code
-- action runs it.
function M.compact_to_fit(args)
  args = vim.deepcopy(args or {})
  local default = args.budget and tostring(args.budget) or ''
  vim.ui.input({ prompt = 'compactd: fit the conversation in how many tokens? ', default = default }, function(input)
    local n = tonumber(input or '')
    if not n or n <= 0 then
      if input and input ~= '' then notify('a budget is a positive number of tokens', vim.log.levels.ERROR) end
      return
    end
    args.budget = math.floor(n)
    M.compact(args)
  end)
end

function M.compact(args, callback)
  return M.execute('compactd.compact', args, function(err, r)
    if not err and type(r) == 'table' then
      M.last_result = r
      notify(('version %s: %s → %s tokens, fork %s'):format(tostring(r.version), tostring(r.tokensBefore),
        tostring(r.tokensAfter), tostring(r.forkPath)))
      open_file(r.forkPath, false)
    end
    if callback then callback(err, r) end
  end)
end

function M.compact_in_place(args, callback)
  return M.execute('compactd.compactInPlace', args, function(err, r)
    if not err and type(r) == 'table' then
      M.last_result = r
      notify(('compacted in place: %s → %s tokens (version %s kept in the store)')
        :format(tostring(r.tokensBefore), tostring(r.tokensAfter), tostring(r.version)))
      vim.cmd('checktime')
    end
    if callback then callback(err, r) end
  end)
end

function M.dry_run(args, callback)
  return M.execute('compactd.dryRun', args, function(err, r)
    if not err and type(r) == 'table' then
      M.last_result = r
      open_file(r.reportPath, true)
    end
    if callback then callback(err, r) end
  end)
end

-- Lines describing the versions of a history result.
function M.format_history(result)
  local lines = {}
  for _, v in ipairs((type(result) == 'table' and result.versions) or {}) do
    local list = v.pipeline
    local strategies = type(list) == 'table' and table.concat(list, ',') or tostring(list or '')
    lines[#lines + 1] = ('%s\tparent %s\t%s\t%s → %s tokens\t%s\t%s'):format(tostring(M.version_id(v)), tostring(v.parent or '-'),
      tostring(v.created or ''), tostring(v.tokensBefore or '?'), tostring(v.tokensAfter or '?'), strategies,
      tostring(v.forkPath or ''))
  end
  if #lines == 0 then lines[1] = 'no versions yet: compact the conversation first' end
  -- The agent's own compactions, each with what its summary lost (<CR> on one restores the
  -- conversation before it).
  local agent = type(result) == 'table' and result.agentCompactions or nil
  if type(agent) == 'table' and #agent > 0 then
    lines[#lines + 1] = ''
    lines[#lines + 1] = "the agent's own compactions:"
    for _, c in ipairs(agent) do
      lines[#lines + 1] = ('%s	line %d	%s'):format(tostring(c.compaction), (tonumber(c.line) or 0) + 1, tostring(c.summary or ''))
    end
    if type(result.health) == 'table' and result.health.loop then
      lines[#lines + 1] = '⚠ ' .. tostring(result.health.warning or '')
    end
  end
  return lines
end

-- history shows the conversation's versions in a scratch buffer; <CR> on a line restores it.
function M.history(args, callback)
  return M.execute('compactd.history', args, function(err, r)
    if not err then
      M.last_history = r
      local lines = M.format_history(r)
      vim.cmd('botright new')
      local buf = vim.api.nvim_get_current_buf()
      vim.bo[buf].buftype = 'nofile'
      vim.bo[buf].bufhidden = 'wipe'
      vim.bo[buf].swapfile = false
      pcall(vim.api.nvim_buf_set_name, buf, 'compactd://history')
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
      vim.bo[buf].modifiable = false
      vim.bo[buf].filetype = 'compactd-history'
      vim.keymap.set('n', '<CR>', function()
        local id = vim.api.nvim_get_current_line():match('^(%S+)\t')
        if id then M.restore(id) end
      end, { buffer = buf, desc = 'compactd: restore this version' })
    end
    if callback then callback(err, r) end
  end)
end

function M.restore(version, callback)
  if version == nil or version == '' then
    notify('which version? :CompactdRestore {version} (see :CompactdHistory)', vim.log.levels.ERROR)
    return false
  end
  return M.execute('compactd.restore', { version = tonumber(version) or version }, function(err, r)
    if not err then
      notify(('restored version %s'):format(tostring(version)))
      if type(r) == 'table' then open_file(r.path, false) end
      vim.cmd('checktime')
    end
    if callback then callback(err, r) end
  end)
end

-- restore_before_agent(version): the conversation as it was before the agent's own
-- compaction version ('a1', 'a2', …; the last when nil), as a new session.
function M.restore_before_agent(version, callback, uri)
  local args = { uri = uri }
  if version ~= nil and version ~= '' then args.version = version end
  return M.execute('compactd.restoreBeforeAgentCompaction', args, function(err, r)
    if not err and type(r) == 'table' then
      notify(('restored the conversation before the agent\'s compaction %s: %s'):format(tostring(r.version), tostring(r.path)))
      open_file(r.path, false)
    end
    if callback then callback(err, r) end
  end)
end

-- recompact_agent(version): that history compacted by compactd, compared with the
-- agent's own summary.
function M.recompact_agent(version, callback, uri)
  local args = { uri = uri }
  if version ~= nil and version ~= '' then args.version = version end
  return M.execute('compactd.recompactAgentCompaction', args, function(err, r)
    if not err and type(r) == 'table' then
      local ar = r.agentRetention or {}
      notify(('re-compacted %s: %s → %s tokens; the agent kept %.2f of the key facts, compactd %.2f'):format(
        tostring(ar.compaction), tostring(r.tokensBefore), tostring(r.tokensAfter),
        (ar.agent or {}).score or 0, (ar.ours or {}).score or 0))
      open_file(r.forkPath, false)
    end
    if callback then callback(err, r) end
  end)
end

function M.diff(from, to, callback)
  return M.execute('compactd.diff', { from = tonumber(from) or from, to = tonumber(to) or to }, function(err, r)
    if callback then callback(err, r) end
  end)
end

-- statusline() is the gauge of the current buffer's conversation, or of the active one:
--   vim.o.statusline = "%f %=%{v:lua.require'compactd'.statusline()}"
function M.statusline()
  local ok, s = pcall(function()
    local g = gauge.for_buffer(0)
    local text = gauge.text(g)
    local mark = gauge.mark(g)
    if text ~= '' and mark ~= '' then text = text .. ' · ' .. mark end
    local job = gauge.progress_text()
    if job ~= '' then text = (text ~= '' and (text .. ' · ') or '') .. job end
    return text
  end)
  return ok and s or ''
end

-- detail() is the statusline's "tooltip": what fills the window and the session's cost, in
-- brief, for the conversation statusline() shows ("outside 20k · tool results 14k · $0.44"):
--   vim.o.statusline = "%f %=%{v:lua.require'compactd'.detail()} %{v:lua.require'compactd'.statusline()}"
function M.detail()
  local ok, s = pcall(function() return gauge.brief(gauge.for_buffer(0)) end)
  return ok and s or ''
end

-- context() opens the :CompactdContext float for the current conversation.
function M.context()
  return require('compactd.context').open(M.current_uri())
end

-- level() is 'ok', 'warn' or 'critical' for the gauge statusline() shows ('' when none).
function M.level()
  local g = gauge.for_buffer(0)
  return g and g.level or ''
end

function M.gauge(bufnr)
  return gauge.for_buffer(bufnr or 0)
end

-- set_settings(settings): new `compactd` settings, sent with workspace/didChangeConfiguration.
function M.set_settings(settings)
  config.settings = settings or {}
  local client = M.client()
  if client then
    local s = M.server_settings(config.settings)
    client.config.settings = { compactd = s }
    client_notify(client, 'workspace/didChangeConfiguration', { settings = { compactd = s } })
  end
end

-- handle_at_cursor(): the handle of the "recall r…" mark under (or before) the cursor on the
-- current line, nil when the line names none.
function M.handle_at_cursor()
  local info = M.info()
  if not info then return nil end
  local mark, handle = vim_regex(info.recallMark), vim_regex(info.recallHandle)
  local line = vim.api.nvim_get_current_line()
  local col = vim.api.nvim_win_get_cursor(0)[2] + 1
  local best
  local init = 0
  while init < #line do
    local s, e = mark:match_str(line:sub(init + 1))
    if not s then break end
    s, e = init + s + 1, init + e -- 1-based, inclusive
    local text = line:sub(s, e)
    local hs, he = handle:match_str(text)
    if hs then
      local h = text:sub(hs + 1, he)
      if s <= col and col <= e then return h end
      if s <= col or not best then best = h end
    end
    init = e
  end
  return best
end

-- recall(handle, callback): opens what a placeholder's or summary's handle names, byte for byte
-- (the server writes it to a file in its store's recalls folder). Without a handle, the one
-- under the cursor.
function M.recall(handle, callback)
  if handle == nil or handle == '' then handle = M.handle_at_cursor() end
  if not handle then
    notify('no recall handle here: a placeholder names one as "recall r7f3c2"', vim.log.levels.WARN)
    return false
  end
  return M.execute('compactd.recall', { handle = handle }, function(err, r)
    if not err and type(r) == 'table' then
      M.last_result = r
      notify(tostring(r.message))
      open_file(r.open, true)
    end
    if callback then callback(err, r) end
  end)
end

-- handoff(agent, opts, callback): continues the conversation (opts.uri, default the current
-- one) in another agent: a new session in its format and place, compacted to fit its window
-- (opts.budget: to so many tokens), and the command that resumes it. Without an agent, vim.ui.select over the agents the binary
-- names (editor-info's handoffAgents); opts.mcp installs compactd's MCP server there (nil:
-- the server asks when it is missing).
function M.handoff(agent, opts, callback)
  opts = opts or {}
  local function run(name)
    return M.execute('compactd.handoff', { uri = opts.uri, agent = name, mcp = opts.mcp, budget = opts.budget }, function(err, r)
      if not err and type(r) == 'table' then
        M.last_result = r
        notify(tostring(r.message))
        open_file(r.path, true)
      end
      if callback then callback(err, r) end
    end)
  end
  if agent and agent ~= '' then return run(agent) end
  local info = M.info()
  local agents = type(info) == 'table' and info.handoffAgents or nil
  if type(agents) ~= 'table' or #agents == 0 then return run(nil) end -- the server asks
  vim.ui.select(agents, {
    prompt = 'Continue this conversation in:',
    format_item = function(a) return a.label end,
  }, function(choice)
    if choice then run(choice.name) end
  end)
  return true
end

-- start_detached(): the server, started without a buffer to attach to ("Find a session…" from
-- anywhere); nil when it cannot start.
local function start_detached()
  local cmd = M.server_cmd()
  if vim.fn.executable(cmd[1]) ~= 1 then
    notify(("no server binary '%s' found: install compactd on PATH or pass path= to require('compactd').setup()")
      :format(cmd[1]), vim.log.levels.ERROR)
    return nil
  end
  local cfg = client_config(0)
  if vim.fn.has('nvim-0.11') == 1 then
    client_id = vim.lsp.start(cfg, { attach = false })
  else
    client_id = vim.lsp.start_client(cfg)
  end
  return M.client()
end

-- search(query, opts, callback): the sessions of every agent on the machine, and the versions
-- compactd stored, that say query (words, "a quoted phrase", word*), best first, from the
-- server's index; opts.limit (default 20), opts.agent (one agent's). callback(err, result):
-- result.hits = {{agent, format, project, session, title, path, line, version, date, role,
-- part, tool, snippet, resume}, …} (lsp/testdata/commands/compactd.search.json).
function M.search(query, opts, callback)
  opts = opts or {}
  local client = M.client()
  if not client or client_stopped(client) then client = start_detached() end
  if not client then return false end
  local args = { query = query, limit = opts.limit, agent = opts.agent }
  client_request(client, 'workspace/executeCommand', { command = 'compactd.search', arguments = { args } },
    function(err, result)
      result = M.unwrap_result(result)
      if err then
        notify(('search failed: %s'):format(err.message or vim.inspect(err)), vim.log.levels.ERROR)
      end
      if callback then callback(err, result) end
    end)
  return true
end

-- hit_label(h): what a hit's match is in: a prompt, an answer, a tool call or its result.
function M.hit_label(h)
  if h.part == 'tool_call' then return 'call ' .. tostring(h.tool or '') end
  if h.part == 'tool_result' then return h.tool and ('result of ' .. h.tool) or 'tool result' end
  if h.part == 'reasoning' then return 'reasoning' end
  if h.role == 'user' then return 'prompt' end
  if h.role == 'assistant' then return 'answer' end
  return tostring(h.role or '')
end

-- format_hit(h): a hit on one line: agent, date, project, what says it.
function M.format_hit(h)
  local date = tostring(h.date or ''):gsub('T', ' '):sub(1, 16)
  local where = h.version and ('stored version ' .. h.version) or tostring(h.project or '')
  return ('%s  %s  %s  %s: %s'):format(tostring(h.agent or h.format), date, where, M.hit_label(h), tostring(h.snippet or ''))
end

-- open_hit(h): the hit's transcript, at the match's line.
function M.open_hit(h)
  if type(h.path) ~= 'string' or h.path == '' then
    notify(('stored version %s of %s has no file on disk: restore it with compactd restore'):format(tostring(h.version), tostring(h.conversation)),
      vim.log.levels.WARN)
    return false
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(h.path))
  if tonumber(h.line) and h.line > 0 then pcall(vim.api.nvim_win_set_cursor, 0, { h.line, 0 }) end
  return true
end

-- hit_action(h): open the hit's transcript, or continue it in another agent (vim.ui.select).
function M.hit_action(h)
  local items = { { 'Open the transcript', function() M.open_hit(h) end } }
  local info = M.info()
  if type(h.path) == 'string' and h.path ~= '' then
    for _, a in ipairs((type(info) == 'table' and info.handoffAgents) or {}) do
      items[#items + 1] = { 'Continue in ' .. a.label, function() M.handoff(a.name, { uri = vim.uri_from_fname(h.path) }) end }
    end
  end
  vim.ui.select(items, { prompt = tostring(h.title or h.path or ''), format_item = function(i) return i[1] end }, function(choice)
    if choice then choice[2]() end
  end)
end

-- find_session(query, opts): :CompactdSearch — the sessions that say query (asked for when
-- nil) in vim.ui.select, then open the one picked or continue it in another agent; with
-- opts.quickfix, the hits in the quickfix list instead.
function M.find_session(query, opts)
  opts = opts or {}
  if query == nil or query == '' then
    vim.ui.input({ prompt = 'compactd: find a session that says: ' }, function(q)
      if q and q ~= '' then M.find_session(q, opts) end
    end)
    return true
  end
  return M.search(query, opts, function(err, r)
    if err or type(r) ~= 'table' then return end
    M.last_search = r
    local hits = type(r.hits) == 'table' and r.hits or {}
    if #hits == 0 then
      notify('no session says ' .. query)
      return
    end
    if opts.quickfix then
      local items = {}
      for _, h in ipairs(hits) do
        if type(h.path) == 'string' and h.path ~= '' then
          items[#items + 1] = { filename = h.path, lnum = tonumber(h.line) or 1, text = M.format_hit(h) }
        end
      end
      vim.fn.setqflist({}, ' ', { title = 'compactd: ' .. query, items = items })
      vim.cmd('copen')
      return
    end
    vim.ui.select(hits, { prompt = 'Sessions that say ' .. query .. ':', format_item = M.format_hit }, function(h)
      if h then M.hit_action(h) end
    end)
  end)
end

-- actions(): what the status line offers for the conversation (the lualine component's
-- click): compact, dry run, history, continue in another agent.
function M.actions()
  local items = {
    { 'Compact conversation', function() M.compact({}) end },
    { 'Dry-run compaction', function() M.dry_run({}) end },
    { 'Show history', function() M.history() end },
    { 'Continue in another agent…', function() M.handoff() end },
    { 'Find a session…', function() M.find_session() end },
  }
  vim.ui.select(items, { prompt = 'compactd:', format_item = function(i) return i[1] end }, function(choice)
    if choice then choice[2]() end
  end)
end

local function user_commands()
  local cmd = vim.api.nvim_create_user_command
  cmd('CompactdCompact', function(o) M.compact(compact_args(o.fargs)) end,
    { nargs = '*', desc = 'compactd: compact the conversation into a new fork ([strategy ...] [keepLast=N])' })
  cmd('CompactdCompactToFit', function(o)
    local args = compact_args(o.fargs)
    if args.budget then M.compact(args) else M.compact_to_fit(args) end
  end, { nargs = '*', desc = 'compactd: compact the conversation to fit a budget of tokens ([budget=N] [strategy ...])' })
  cmd('CompactdDryRun', function(o) M.dry_run(compact_args(o.fargs)) end,
    { nargs = '*', desc = 'compactd: dry-run compaction and open the report' })
  cmd('CompactdCompactInPlace', function(o)
    if not o.bang and vim.fn.confirm('Compact the transcript in place? (the old content is kept in the store)', '&Yes\n&No', 2) ~= 1 then
      return
    end
    M.compact_in_place(compact_args(o.fargs))
  end, { nargs = '*', bang = true, desc = 'compactd: compact the transcript in place (! skips the question)' })
  cmd('CompactdHistory', function() M.history() end, { desc = 'compactd: list the versions of the conversation' })
  cmd('CompactdRestore', function(o) M.restore(o.args) end, { nargs = 1, desc = 'compactd: restore a version' })
  cmd('CompactdDiff', function(o) M.diff(o.fargs[1], o.fargs[2]) end, { nargs = '+', desc = 'compactd: diff two versions' })
  cmd('CompactdRestoreBeforeAgent', function(o) M.restore_before_agent(o.args) end,
    { nargs = '?', desc = "compactd: the conversation before the agent's own compaction [aN] as a new session" })
  cmd('CompactdRecompactAgent', function(o) M.recompact_agent(o.args) end,
    { nargs = '?', desc = "compactd: compact the history before the agent's compaction [aN] with compactd" })
  cmd('CompactdRecall', function(o) M.recall(o.args) end,
    { nargs = '?', desc = 'compactd: open what a placeholder or summary replaced ([handle], default: under the cursor)' })
  cmd('CompactdHandoff', function(o)
    local agent, opts = nil, {}
    for _, a in ipairs(o.fargs) do
      local budget, mcp = a:match('^budget=(%d+)$'), a:match('^mcp=(%a+)$')
      if budget then opts.budget = tonumber(budget)
      elseif mcp then opts.mcp = (mcp == 'yes' or mcp == 'true')
      else agent = a end
    end
    M.handoff(agent, opts)
  end, { nargs = '*', desc = 'compactd: continue the conversation in another agent ([agent] [budget=N] [mcp=yes|no])' })
  cmd('CompactdSearch', function(o) M.find_session(o.args, { quickfix = o.bang }) end,
    { nargs = '?', bang = true, desc = 'compactd: find a session of any agent by what was said in it (! lists the hits in the quickfix list)' })
  cmd('CompactdActions', function() M.actions() end, { desc = 'compactd: the conversation\'s actions' })
  cmd('CompactdContext', function() M.context() end,
    { desc = 'compactd: what fills the context window, per turn, and what it costs (a float)' })
  cmd('CompactdStatus', function()
    local lines = {}
    for fname, g in pairs(gauge.all()) do
      local brief = gauge.brief(g, 3)
      lines[#lines + 1] = ('%s%s  %s  [%s, %s]%s'):format(g.active and '* ' or '  ', fname, gauge.text(g),
        tostring(g.level), tostring(g.source), brief ~= '' and ('  ' .. brief) or '')
    end
    notify(#lines > 0 and ('\n' .. table.concat(lines, '\n')) or 'no gauges yet')
  end, { desc = 'compactd: every conversation\'s gauge' })
end

-- setup(opts): see :help compactd-setup.
function M.setup(opts)
  config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if opts and opts.patterns then config.patterns = opts.patterns end
  user_commands()
  -- "Compact to fit…" is the client's to run: it asks for the budget.
  vim.lsp.commands['compactd.compactToFit'] = function(command)
    M.compact_to_fit(command.arguments and command.arguments[1] or {})
  end
  augroup = vim.api.nvim_create_augroup('compactd', { clear = true })
  local patterns, why
  if config.autostart then patterns, why = M.patterns() end
  if patterns then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufEnter' }, {
      group = augroup,
      pattern = patterns,
      callback = function(ev)
        if vim.bo[ev.buf].buftype == '' then M.attach(ev.buf) end
      end,
    })
  elseif config.autostart then
    notify(why .. ': no transcript will start the server (install compactd on PATH, pass path= or patterns= to setup())',
      vim.log.levels.WARN)
  end
  -- A window switch changes which gauge statusline() shows.
  vim.api.nvim_create_autocmd({ 'BufEnter', 'WinEnter' }, {
    group = augroup,
    callback = function() vim.cmd('redrawstatus') end,
  })
  return M
end

-- agent_compactions are the compactd/agentCompaction notifications received, oldest first:
-- {uri, format, compaction = {compaction = 'a2', summary, lost = {...}, line, ...}, health, message, actions}.
M.agent_compactions = {}

-- agent_action(note, i): run action i (1 Restore from before, 2 Re-compact with compactd) of
-- a compactd/agentCompaction notification, on the conversation it names (default: the last
-- notification's first action).
function M.agent_action(note, i, callback)
  note = note or M.agent_compactions[#M.agent_compactions]
  if type(note) ~= 'table' or type(note.compaction) ~= 'table' then
    notify('the agent has not compacted a watched conversation yet', vim.log.levels.WARN)
    return false
  end
  local run = (i or 1) == 2 and M.recompact_agent or M.restore_before_agent
  return run(note.compaction.compaction, callback, note.uri)
end

-- mark() is where the agent compacts by itself, for the statusline() conversation:
-- 'auto 167k' ('auto off' when switched off; '' when unknown).
function M.mark()
  local ok, s = pcall(function() return gauge.mark(gauge.for_buffer(0)) end)
  return ok and s or ''
end

-- Test hook: forget every gauge (the client stays).
function M._reset() gauge.clear() end

return M
