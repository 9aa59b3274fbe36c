// The JavaScript clients, each written as its own docs show it, pointed at `agentlab serve`.
//
// tests/test_compat_js.py runs this file with node, its text on stdin and the working folder
// .node/ (so `import "ai7"` finds .node/node_modules, where CI's npm installs the packages under
// these names: openai6, openai7, ai6, ai7, ai-sdk-openai6, ai-sdk-openai7 and zod). The case to
// run comes in AGENTLAB_JS_CASE as JSON: {"client", "version", "mode", "baseURL"}. It prints one
// line of JSON: {"text": the final answer, "steps": model calls made, "calls": tool names}.

const { client, version, mode, baseURL } = JSON.parse(process.env.AGENTLAB_JS_CASE);
const apiKey = "sk-offline-test";  // a dummy: the tutor needs no key
const TASK = "What is 17 * 23, and what's the weather in Oslo?";
const WEATHER = { city: "Oslo", temperature_c: 18, conditions: "sunny" };

function runTool(name, args) {
  if (name === "get_weather") return { ...WEATHER, city: args.city };
  if (name === "calculate") return { expression: args.expression, value: 391 };
  throw new Error(`no tool ${name}`);
}

const parameters = {
  get_weather: { type: "object", properties: { city: { type: "string" } }, required: ["city"],
                 additionalProperties: false },
  calculate: { type: "object", properties: { expression: { type: "string" } },
               required: ["expression"], additionalProperties: false },
};
const descriptions = { get_weather: "The current weather in a city.",
                       calculate: "Evaluate an arithmetic expression." };

// ---------------------------------------------------------------------------------------------
// openai-node: the tool loop by hand (Chat Completions and Responses), runTools, and the parse
// helpers of both APIs

async function openaiNode() {
  const { default: OpenAI } = await import(`openai${version}`);
  const openai = new OpenAI({ apiKey, baseURL, maxRetries: 0 });
  const calls = [];
  let steps = 0;
  if (mode === "chat") {
    const tools = Object.keys(parameters).map((name) => ({ type: "function", function: {
      name, description: descriptions[name], parameters: parameters[name] } }));
    const messages = [{ role: "user", content: TASK }];
    for (;;) {
      const completion = await openai.chat.completions.create({ model: "tutor", messages, tools });
      steps += 1;
      const message = completion.choices[0].message;
      messages.push(message);
      if (!message.tool_calls?.length) return { text: message.content, steps, calls };
      for (const call of message.tool_calls) {
        calls.push(call.function.name);
        const result = runTool(call.function.name, JSON.parse(call.function.arguments));
        messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
      }
    }
  }
  if (mode === "responses" || mode === "responses-previous") {
    // The docs' loop: the output items go back as they came (or by previous_response_id)
    const tools = Object.keys(parameters).map((name) => ({ type: "function", name,
      description: descriptions[name], parameters: parameters[name], strict: true }));
    let input = [{ role: "user", content: TASK }];
    let previous;
    for (;;) {
      const response = await openai.responses.create({ model: "tutor", input, tools,
                                                       previous_response_id: previous });
      steps += 1;
      const asked = response.output.filter((item) => item.type === "function_call");
      if (!asked.length) return { text: response.output_text, steps, calls };
      const outputs = asked.map((call) => {
        calls.push(call.name);
        return { type: "function_call_output", call_id: call.call_id,
                 output: JSON.stringify(runTool(call.name, JSON.parse(call.arguments))) };
      });
      if (mode === "responses") {
        input = [...input, ...response.output, ...outputs];
      } else {
        input = outputs;
        previous = response.id;
      }
    }
  }
  if (mode === "run-tools") {
    const tools = Object.keys(parameters).map((name) => ({ type: "function", function: {
      name, description: descriptions[name], parameters: parameters[name],
      parse: JSON.parse, function: (args) => { calls.push(name); return runTool(name, args); },
    } }));
    const runner = openai.chat.completions.runTools({ model: "tutor", tools,
      messages: [{ role: "user", content: TASK }] });
    runner.on("chatCompletion", () => { steps += 1; });
    return { text: await runner.finalContent(), steps, calls };
  }
  if (mode === "parse") {
    const { zodResponseFormat } = await import(`openai${version}/helpers/zod`);
    const { z } = await import("zod");
    const Weather = z.object({ city: z.string(), temperature_c: z.number() });
    const messages = [
      { role: "user", content: "What's the weather in Oslo? Answer as JSON." },
      { role: "assistant", tool_calls: [{ id: "call_1", type: "function", function: {
        name: "get_weather", arguments: JSON.stringify({ city: "Oslo" }) } }] },
      { role: "tool", tool_call_id: "call_1", content: JSON.stringify(WEATHER) }];
    const tools = [{ type: "function", function: { name: "get_weather", strict: true,
      description: descriptions.get_weather, parameters: parameters.get_weather } }];
    const completion = await openai.chat.completions.parse({ model: "tutor", messages, tools,
      response_format: zodResponseFormat(Weather, "weather") });
    return { text: JSON.stringify(completion.choices[0].message.parsed), steps: 1, calls };
  }
  if (mode === "responses-parse") {
    const { zodTextFormat } = await import(`openai${version}/helpers/zod`);
    const { z } = await import("zod");
    const Weather = z.object({ city: z.string(), temperature_c: z.number() });
    const input = [
      { role: "user", content: "What's the weather in Oslo? Answer as JSON." },
      { type: "function_call", call_id: "call_1", name: "get_weather",
        arguments: JSON.stringify({ city: "Oslo" }) },
      { type: "function_call_output", call_id: "call_1", output: JSON.stringify(WEATHER) }];
    const tools = [{ type: "function", name: "get_weather", strict: true,
                     description: descriptions.get_weather, parameters: parameters.get_weather }];
    const response = await openai.responses.parse({ model: "tutor", input, tools,
      text: { format: zodTextFormat(Weather, "weather") } });
    return { text: JSON.stringify(response.output_parsed), steps: 1, calls };
  }
  throw new Error(`no mode ${mode}`);
}

// ---------------------------------------------------------------------------------------------
// The Vercel AI SDK: generateText and streamText, with the Responses model (the provider's
// default, store true or false) and the Chat Completions one, going on until the answer

async function aiSdk() {
  const ai = await import(`ai${version}`);
  const { createOpenAI } = await import(`ai-sdk-openai${version}`);
  const { z } = await import("zod");
  const provider = createOpenAI({ apiKey, baseURL });
  const calls = [];
  const [api, how, store] = mode.split("-");  // e.g. "responses-stream-nostore"
  const model = api === "chat" ? provider.chat("tutor") : provider("tutor");
  const tools = {
    get_weather: ai.tool({ description: descriptions.get_weather,
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => { calls.push("get_weather"); return runTool("get_weather",
                                                                               { city }); } }),
    calculate: ai.tool({ description: descriptions.calculate,
      inputSchema: z.object({ expression: z.string() }),
      execute: async ({ expression }) => { calls.push("calculate");
                                           return runTool("calculate", { expression }); } }),
  };
  const options = { model, tools, prompt: TASK, stopWhen: ai.stepCountIs(5), maxRetries: 0,
                    providerOptions: store === "nostore" ? { openai: { store: false } } : {} };
  if (how === "stream") {
    const errors = [];
    const result = ai.streamText({ ...options, onError: ({ error }) => errors.push(error) });
    const text = await result.text;
    if (errors.length) throw errors[0];
    return { text, steps: (await result.steps).length, calls };
  }
  const result = await ai.generateText(options);
  return { text: result.text, steps: result.steps.length, calls };
}

try {
  const outcome = client === "openai-node" ? await openaiNode() : await aiSdk();
  console.log(JSON.stringify(outcome));
} catch (error) {
  // The server's refusal, as the client reports it, on one line for the test to show
  const body = error.responseBody ?? error.error ?? "";
  console.log(JSON.stringify({ error: `${error.name}: ${error.message}`,
                               body: typeof body === "string" ? body : JSON.stringify(body) }));
  process.exitCode = 1;
}
