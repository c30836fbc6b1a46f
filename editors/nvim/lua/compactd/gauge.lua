-- Gauge state: the last `compactd/gauge` notification per conversation, and how it is shown.
-- Pure Lua on plain tables so the statusline stays cheap: it runs on every redraw.
local M = {}

-- gauges[key] = params of the last compactd/gauge for that conversation, keyed by file path:
-- Go and Neovim percent-encode URIs differently, paths compare reliably.
local gauges = {}
-- The conversation the agent is working on now (the last gauge sent with active = true),
-- else the last one updated.
local active_uri, last_uri
-- progress[token] = { title, message, percentage } while a server job runs.
local progress = {}

-- key(uri_or_path) is the file path of a file: URI, or the argument itself.
local function key(s)
  if type(s) ~= 'string' then return nil end
  if s:match('^file:') then
    local ok, fname = pcall(vim.uri_to_fname, s)
    if ok then return fname end
  end
  return s
end
M.key = key

function M.update(params)
  if type(params) ~= 'table' or type(params.uri) ~= 'string' then return end
  local uri = key(params.uri)
  if params.removed then -- the transcript is gone
    gauges[uri] = nil
    if active_uri == uri then active_uri = nil end
    if last_uri == uri then last_uri = nil end
    return
  end
  gauges[uri] = params
  last_uri = uri
  if params.active then active_uri = uri end
end

function M.set_all(list)
  for _, p in ipairs(list or {}) do M.update(p) end
end

function M.get(uri_or_path) return uri_or_path and gauges[key(uri_or_path)] or nil end

function M.all() return gauges end

function M.clear()
  gauges, active_uri, last_uri, progress = {}, nil, nil, {}
end

-- The gauge a status line should show for buffer bufnr: the buffer's own conversation when
-- it is one, otherwise the active conversation's.
function M.for_buffer(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr or 0)
  if name ~= '' then
    local own = gauges[name]
    if own then return own end
  end
  return gauges[active_uri or ''] or gauges[last_uri or '']
end

local function short(n)
  n = tonumber(n) or 0
  if n >= 1e6 then return ('%.1fM'):format(n / 1e6) end
  if n >= 1e3 then return ('%dk'):format(math.floor(n / 1e3 + 0.5)) end
  return tostring(math.floor(n))
end

-- text of a gauge as the server words it ("156k / 200k · 78 %"), rebuilt from the numbers
-- when the server sent no text.
-- mark(g): where the agent compacts by itself, in brief: 'auto 167k', 'auto off', '' when unknown.
function M.mark(g)
  if type(g) ~= 'table' or type(g.autoCompact) ~= 'table' then return '' end
  local m = g.autoCompact
  if m.disabled or not m.at or m.at == 0 then return 'auto off' end
  return 'auto ' .. short(m.at)
end

function M.text(g)
  if not g then return '' end
  if type(g.text) == 'string' and g.text ~= '' then return g.text end
  local ratio = tonumber(g.ratio) or 0
  return ('%s / %s · %d %%'):format(short(g.tokens), short(g.contextWindow), math.floor(ratio * 100 + 0.5))
end

-- brief(g) is what fills the window in a few words, largest parts first, and the session's
-- cost: "outside 20k · tool results 14k · $0.44" ('' for a gauge from an older server).
function M.brief(g, parts)
  if type(g) ~= 'table' or type(g.breakdown) ~= 'table' then return '' end
  local list = {}
  for _, p in ipairs(g.breakdown.parts or {}) do
    if (tonumber(p.tokens) or 0) > 0 then list[#list + 1] = p end
  end
  table.sort(list, function(a, b) return a.tokens > b.tokens end)
  local out = {}
  for i, p in ipairs(list) do
    if i > (parts or 2) then break end
    out[#out + 1] = (p.category == 'outside' and 'outside' or p.label) .. ' ' .. short(p.tokens)
  end
  if type(g.cost) == 'table' and (tonumber(g.cost.responses) or 0) > 0 then
    out[#out + 1] = require('compactd.context').dollars(g.cost.session)
  end
  return table.concat(out, ' · ')
end

function M.progress_update(token, value)
  if type(value) ~= 'table' then return end
  local key = tostring(token)
  if value.kind == 'end' then
    progress[key] = nil
    return
  end
  local p = progress[key] or {}
  p.title = value.title or p.title
  p.message = value.message or p.message
  p.percentage = value.percentage or p.percentage
  progress[key] = p
end

-- One line about the running job, '' when none.
function M.progress_text()
  for _, p in pairs(progress) do
    local s = p.title or 'compactd'
    if p.percentage then s = s .. (' %d %%'):format(p.percentage) end
    return s
  end
  return ''
end

return M
