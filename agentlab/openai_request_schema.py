"""The request side of OpenAI's chat-completions API, as JSON Schema (draft 7) for the server.

Generated from tests/data/openai-chat-completions.openapi.json (OpenAI's official description,
info.version 2.3.0) by keeping the schemas a request reaches and only their validation keywords
(descriptions dropped, OpenAPI's `nullable` written as `anyOf [..., null]`). A test
(tests/test_server_schema.py) checks that this copy still equals what the reference gives; run
that file as a script to regenerate it. It lives in the package because the server needs it and
an installed package has no tests/ folder.
"""

import json

SCHEMAS = json.loads(r'''{
 "ChatCompletionAllowedTools": {
  "properties": {
   "mode": {
    "enum": [
     "auto",
     "required"
    ],
    "type": "string"
   },
   "tools": {
    "items": {
     "additionalProperties": true,
     "type": "object"
    },
    "type": "array"
   }
  },
  "required": [
   "mode",
   "tools"
  ],
  "type": "object"
 },
 "ChatCompletionAllowedToolsChoice": {
  "properties": {
   "allowed_tools": {
    "$ref": "#/definitions/ChatCompletionAllowedTools"
   },
   "type": {
    "enum": [
     "allowed_tools"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "allowed_tools"
  ],
  "type": "object"
 },
 "ChatCompletionFunctionCallOption": {
  "properties": {
   "name": {
    "type": "string"
   }
  },
  "required": [
   "name"
  ],
  "type": "object"
 },
 "ChatCompletionFunctions": {
  "properties": {
   "description": {
    "type": "string"
   },
   "name": {
    "type": "string"
   },
   "parameters": {
    "$ref": "#/definitions/FunctionParameters"
   }
  },
  "required": [
   "name"
  ],
  "type": "object"
 },
 "ChatCompletionMessageCustomToolCall": {
  "properties": {
   "custom": {
    "properties": {
     "input": {
      "type": "string"
     },
     "name": {
      "type": "string"
     }
    },
    "required": [
     "name",
     "input"
    ],
    "type": "object"
   },
   "id": {
    "type": "string"
   },
   "type": {
    "enum": [
     "custom"
    ],
    "type": "string"
   }
  },
  "required": [
   "id",
   "type",
   "custom"
  ],
  "type": "object"
 },
 "ChatCompletionMessageToolCall": {
  "properties": {
   "function": {
    "properties": {
     "arguments": {
      "type": "string"
     },
     "name": {
      "type": "string"
     }
    },
    "required": [
     "name",
     "arguments"
    ],
    "type": "object"
   },
   "id": {
    "type": "string"
   },
   "type": {
    "enum": [
     "function"
    ],
    "type": "string"
   }
  },
  "required": [
   "id",
   "type",
   "function"
  ],
  "type": "object"
 },
 "ChatCompletionMessageToolCalls": {
  "items": {
   "oneOf": [
    {
     "$ref": "#/definitions/ChatCompletionMessageToolCall"
    },
    {
     "$ref": "#/definitions/ChatCompletionMessageCustomToolCall"
    }
   ]
  },
  "type": "array"
 },
 "ChatCompletionNamedToolChoice": {
  "properties": {
   "function": {
    "properties": {
     "name": {
      "type": "string"
     }
    },
    "required": [
     "name"
    ],
    "type": "object"
   },
   "type": {
    "enum": [
     "function"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "function"
  ],
  "type": "object"
 },
 "ChatCompletionNamedToolChoiceCustom": {
  "properties": {
   "custom": {
    "properties": {
     "name": {
      "type": "string"
     }
    },
    "required": [
     "name"
    ],
    "type": "object"
   },
   "type": {
    "enum": [
     "custom"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "custom"
  ],
  "type": "object"
 },
 "ChatCompletionRequestAssistantMessage": {
  "properties": {
   "audio": {
    "anyOf": [
     {
      "properties": {
       "id": {
        "type": "string"
       }
      },
      "required": [
       "id"
      ],
      "type": "object"
     },
     {
      "type": "null"
     }
    ]
   },
   "content": {
    "anyOf": [
     {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "items": {
         "$ref": "#/definitions/ChatCompletionRequestAssistantMessageContentPart"
        },
        "minItems": 1,
        "type": "array"
       }
      ]
     },
     {
      "type": "null"
     }
    ]
   },
   "function_call": {
    "anyOf": [
     {
      "properties": {
       "arguments": {
        "type": "string"
       },
       "name": {
        "type": "string"
       }
      },
      "required": [
       "arguments",
       "name"
      ],
      "type": "object"
     },
     {
      "type": "null"
     }
    ]
   },
   "name": {
    "type": "string"
   },
   "refusal": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "role": {
    "enum": [
     "assistant"
    ],
    "type": "string"
   },
   "tool_calls": {
    "$ref": "#/definitions/ChatCompletionMessageToolCalls"
   }
  },
  "required": [
   "role"
  ],
  "type": "object"
 },
 "ChatCompletionRequestAssistantMessageContentPart": {
  "oneOf": [
   {
    "$ref": "#/definitions/ChatCompletionRequestMessageContentPartText"
   },
   {
    "$ref": "#/definitions/ChatCompletionRequestMessageContentPartRefusal"
   }
  ]
 },
 "ChatCompletionRequestDeveloperMessage": {
  "properties": {
   "content": {
    "oneOf": [
     {
      "type": "string"
     },
     {
      "items": {
       "$ref": "#/definitions/ChatCompletionRequestMessageContentPartText"
      },
      "minItems": 1,
      "type": "array"
     }
    ]
   },
   "name": {
    "type": "string"
   },
   "role": {
    "enum": [
     "developer"
    ],
    "type": "string"
   }
  },
  "required": [
   "content",
   "role"
  ],
  "type": "object"
 },
 "ChatCompletionRequestFunctionMessage": {
  "properties": {
   "content": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "name": {
    "type": "string"
   },
   "role": {
    "enum": [
     "function"
    ],
    "type": "string"
   }
  },
  "required": [
   "role",
   "content",
   "name"
  ],
  "type": "object"
 },
 "ChatCompletionRequestMessage": {
  "oneOf": [
   {
    "$ref": "#/definitions/ChatCompletionRequestDeveloperMessage"
   },
   {
    "$ref": "#/definitions/ChatCompletionRequestSystemMessage"
   },
   {
    "$ref": "#/definitions/ChatCompletionRequestUserMessage"
   },
   {
    "$ref": "#/definitions/ChatCompletionRequestAssistantMessage"
   },
   {
    "$ref": "#/definitions/ChatCompletionRequestToolMessage"
   },
   {
    "$ref": "#/definitions/ChatCompletionRequestFunctionMessage"
   }
  ]
 },
 "ChatCompletionRequestMessageContentPartAudio": {
  "properties": {
   "input_audio": {
    "properties": {
     "data": {
      "type": "string"
     },
     "format": {
      "enum": [
       "wav",
       "mp3"
      ],
      "type": "string"
     }
    },
    "required": [
     "data",
     "format"
    ],
    "type": "object"
   },
   "prompt_cache_breakpoint": {
    "$ref": "#/definitions/PromptCacheBreakpointParam"
   },
   "type": {
    "enum": [
     "input_audio"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "input_audio"
  ],
  "type": "object"
 },
 "ChatCompletionRequestMessageContentPartFile": {
  "properties": {
   "file": {
    "properties": {
     "file_data": {
      "type": "string"
     },
     "file_id": {
      "type": "string"
     },
     "filename": {
      "type": "string"
     }
    },
    "type": "object"
   },
   "prompt_cache_breakpoint": {
    "$ref": "#/definitions/PromptCacheBreakpointParam"
   },
   "type": {
    "enum": [
     "file"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "file"
  ],
  "type": "object"
 },
 "ChatCompletionRequestMessageContentPartImage": {
  "properties": {
   "image_url": {
    "properties": {
     "detail": {
      "enum": [
       "auto",
       "low",
       "high"
      ],
      "type": "string"
     },
     "url": {
      "type": "string"
     }
    },
    "required": [
     "url"
    ],
    "type": "object"
   },
   "prompt_cache_breakpoint": {
    "$ref": "#/definitions/PromptCacheBreakpointParam"
   },
   "type": {
    "enum": [
     "image_url"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "image_url"
  ],
  "type": "object"
 },
 "ChatCompletionRequestMessageContentPartRefusal": {
  "properties": {
   "refusal": {
    "type": "string"
   },
   "type": {
    "enum": [
     "refusal"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "refusal"
  ],
  "type": "object"
 },
 "ChatCompletionRequestMessageContentPartText": {
  "properties": {
   "prompt_cache_breakpoint": {
    "$ref": "#/definitions/PromptCacheBreakpointParam"
   },
   "text": {
    "type": "string"
   },
   "type": {
    "enum": [
     "text"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "text"
  ],
  "type": "object"
 },
 "ChatCompletionRequestSystemMessage": {
  "properties": {
   "content": {
    "oneOf": [
     {
      "type": "string"
     },
     {
      "items": {
       "$ref": "#/definitions/ChatCompletionRequestSystemMessageContentPart"
      },
      "minItems": 1,
      "type": "array"
     }
    ]
   },
   "name": {
    "type": "string"
   },
   "role": {
    "enum": [
     "system"
    ],
    "type": "string"
   }
  },
  "required": [
   "content",
   "role"
  ],
  "type": "object"
 },
 "ChatCompletionRequestSystemMessageContentPart": {
  "oneOf": [
   {
    "$ref": "#/definitions/ChatCompletionRequestMessageContentPartText"
   }
  ]
 },
 "ChatCompletionRequestToolMessage": {
  "properties": {
   "content": {
    "oneOf": [
     {
      "type": "string"
     },
     {
      "items": {
       "$ref": "#/definitions/ChatCompletionRequestToolMessageContentPart"
      },
      "minItems": 1,
      "type": "array"
     }
    ]
   },
   "role": {
    "enum": [
     "tool"
    ],
    "type": "string"
   },
   "tool_call_id": {
    "type": "string"
   }
  },
  "required": [
   "role",
   "content",
   "tool_call_id"
  ],
  "type": "object"
 },
 "ChatCompletionRequestToolMessageContentPart": {
  "oneOf": [
   {
    "$ref": "#/definitions/ChatCompletionRequestMessageContentPartText"
   }
  ]
 },
 "ChatCompletionRequestUserMessage": {
  "properties": {
   "content": {
    "oneOf": [
     {
      "type": "string"
     },
     {
      "items": {
       "$ref": "#/definitions/ChatCompletionRequestUserMessageContentPart"
      },
      "minItems": 1,
      "type": "array"
     }
    ]
   },
   "name": {
    "type": "string"
   },
   "role": {
    "enum": [
     "user"
    ],
    "type": "string"
   }
  },
  "required": [
   "content",
   "role"
  ],
  "type": "object"
 },
 "ChatCompletionRequestUserMessageContentPart": {
  "oneOf": [
   {
    "$ref": "#/definitions/ChatCompletionRequestMessageContentPartText"
   },
   {
    "$ref": "#/definitions/ChatCompletionRequestMessageContentPartImage"
   },
   {
    "$ref": "#/definitions/ChatCompletionRequestMessageContentPartAudio"
   },
   {
    "$ref": "#/definitions/ChatCompletionRequestMessageContentPartFile"
   }
  ]
 },
 "ChatCompletionStreamOptions": {
  "anyOf": [
   {
    "properties": {
     "include_obfuscation": {
      "type": "boolean"
     },
     "include_usage": {
      "type": "boolean"
     }
    },
    "type": "object"
   },
   {
    "type": "null"
   }
  ]
 },
 "ChatCompletionTool": {
  "properties": {
   "function": {
    "$ref": "#/definitions/FunctionObject"
   },
   "type": {
    "enum": [
     "function"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "function"
  ],
  "type": "object"
 },
 "ChatCompletionToolChoiceOption": {
  "oneOf": [
   {
    "enum": [
     "none",
     "auto",
     "required"
    ],
    "type": "string"
   },
   {
    "$ref": "#/definitions/ChatCompletionAllowedToolsChoice"
   },
   {
    "$ref": "#/definitions/ChatCompletionNamedToolChoice"
   },
   {
    "$ref": "#/definitions/ChatCompletionNamedToolChoiceCustom"
   }
  ]
 },
 "CreateChatCompletionRequest": {
  "allOf": [
   {
    "$ref": "#/definitions/CreateModelResponseProperties"
   },
   {
    "properties": {
     "audio": {
      "anyOf": [
       {
        "properties": {
         "format": {
          "enum": [
           "wav",
           "aac",
           "mp3",
           "flac",
           "opus",
           "pcm16"
          ],
          "type": "string"
         },
         "voice": {
          "$ref": "#/definitions/VoiceIdsOrCustomVoice"
         }
        },
        "required": [
         "voice",
         "format"
        ],
        "type": "object"
       },
       {
        "type": "null"
       }
      ]
     },
     "frequency_penalty": {
      "anyOf": [
       {
        "maximum": 2,
        "minimum": -2,
        "type": "number"
       },
       {
        "type": "null"
       }
      ]
     },
     "function_call": {
      "oneOf": [
       {
        "enum": [
         "none",
         "auto"
        ],
        "type": "string"
       },
       {
        "$ref": "#/definitions/ChatCompletionFunctionCallOption"
       }
      ]
     },
     "functions": {
      "items": {
       "$ref": "#/definitions/ChatCompletionFunctions"
      },
      "maxItems": 128,
      "minItems": 1,
      "type": "array"
     },
     "logit_bias": {
      "anyOf": [
       {
        "additionalProperties": {
         "type": "integer"
        },
        "type": "object"
       },
       {
        "type": "null"
       }
      ]
     },
     "logprobs": {
      "anyOf": [
       {
        "type": "boolean"
       },
       {
        "type": "null"
       }
      ]
     },
     "max_completion_tokens": {
      "anyOf": [
       {
        "type": "integer"
       },
       {
        "type": "null"
       }
      ]
     },
     "max_tokens": {
      "anyOf": [
       {
        "type": "integer"
       },
       {
        "type": "null"
       }
      ]
     },
     "messages": {
      "items": {
       "$ref": "#/definitions/ChatCompletionRequestMessage"
      },
      "minItems": 1,
      "type": "array"
     },
     "modalities": {
      "$ref": "#/definitions/ResponseModalities"
     },
     "model": {
      "$ref": "#/definitions/ModelIdsShared"
     },
     "moderation": {
      "anyOf": [
       {
        "$ref": "#/definitions/ModerationParam"
       },
       {
        "type": "null"
       }
      ]
     },
     "n": {
      "anyOf": [
       {
        "maximum": 128,
        "minimum": 1,
        "type": "integer"
       },
       {
        "type": "null"
       }
      ]
     },
     "parallel_tool_calls": {
      "$ref": "#/definitions/ParallelToolCalls"
     },
     "prediction": {
      "anyOf": [
       {
        "oneOf": [
         {
          "$ref": "#/definitions/PredictionContent"
         }
        ]
       },
       {
        "type": "null"
       }
      ]
     },
     "presence_penalty": {
      "anyOf": [
       {
        "maximum": 2,
        "minimum": -2,
        "type": "number"
       },
       {
        "type": "null"
       }
      ]
     },
     "reasoning_effort": {
      "$ref": "#/definitions/ReasoningEffort"
     },
     "response_format": {
      "oneOf": [
       {
        "$ref": "#/definitions/ResponseFormatText"
       },
       {
        "$ref": "#/definitions/ResponseFormatJsonSchema"
       },
       {
        "$ref": "#/definitions/ResponseFormatJsonObject"
       }
      ]
     },
     "seed": {
      "anyOf": [
       {
        "maximum": 9223372036854776000,
        "minimum": -9223372036854776000,
        "type": "integer"
       },
       {
        "type": "null"
       }
      ]
     },
     "service_tier": {
      "$ref": "#/definitions/ServiceTier"
     },
     "stop": {
      "$ref": "#/definitions/StopConfiguration"
     },
     "store": {
      "anyOf": [
       {
        "type": "boolean"
       },
       {
        "type": "null"
       }
      ]
     },
     "stream": {
      "anyOf": [
       {
        "type": "boolean"
       },
       {
        "type": "null"
       }
      ]
     },
     "stream_options": {
      "$ref": "#/definitions/ChatCompletionStreamOptions"
     },
     "tool_choice": {
      "$ref": "#/definitions/ChatCompletionToolChoiceOption"
     },
     "tools": {
      "items": {
       "oneOf": [
        {
         "$ref": "#/definitions/ChatCompletionTool"
        },
        {
         "$ref": "#/definitions/CustomToolChatCompletions"
        }
       ]
      },
      "type": "array"
     },
     "top_logprobs": {
      "anyOf": [
       {
        "maximum": 20,
        "minimum": 0,
        "type": "integer"
       },
       {
        "type": "null"
       }
      ]
     },
     "verbosity": {
      "$ref": "#/definitions/Verbosity"
     },
     "web_search_options": {
      "properties": {
       "search_context_size": {
        "$ref": "#/definitions/WebSearchContextSize"
       },
       "user_location": {
        "anyOf": [
         {
          "properties": {
           "approximate": {
            "$ref": "#/definitions/WebSearchLocation"
           },
           "type": {
            "enum": [
             "approximate"
            ],
            "type": "string"
           }
          },
          "required": [
           "type",
           "approximate"
          ],
          "type": "object"
         },
         {
          "type": "null"
         }
        ]
       }
      },
      "type": "object"
     }
    },
    "required": [
     "model",
     "messages"
    ],
    "type": "object"
   }
  ]
 },
 "CreateModelResponseProperties": {
  "allOf": [
   {
    "$ref": "#/definitions/ModelResponseProperties"
   },
   {
    "properties": {
     "prompt_cache_options": {
      "$ref": "#/definitions/PromptCacheOptionsParam"
     },
     "top_logprobs": {
      "maximum": 20,
      "minimum": 0,
      "type": "integer"
     }
    },
    "type": "object"
   }
  ]
 },
 "CustomToolChatCompletions": {
  "properties": {
   "custom": {
    "properties": {
     "description": {
      "type": "string"
     },
     "format": {
      "oneOf": [
       {
        "additionalProperties": false,
        "properties": {
         "type": {
          "enum": [
           "text"
          ],
          "type": "string"
         }
        },
        "required": [
         "type"
        ],
        "type": "object"
       },
       {
        "additionalProperties": false,
        "properties": {
         "grammar": {
          "properties": {
           "definition": {
            "type": "string"
           },
           "syntax": {
            "enum": [
             "lark",
             "regex"
            ],
            "type": "string"
           }
          },
          "required": [
           "definition",
           "syntax"
          ],
          "type": "object"
         },
         "type": {
          "enum": [
           "grammar"
          ],
          "type": "string"
         }
        },
        "required": [
         "type",
         "grammar"
        ],
        "type": "object"
       }
      ]
     },
     "name": {
      "type": "string"
     }
    },
    "required": [
     "name"
    ],
    "type": "object"
   },
   "type": {
    "enum": [
     "custom"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "custom"
  ],
  "type": "object"
 },
 "FunctionObject": {
  "properties": {
   "description": {
    "type": "string"
   },
   "name": {
    "type": "string"
   },
   "parameters": {
    "$ref": "#/definitions/FunctionParameters"
   },
   "strict": {
    "anyOf": [
     {
      "type": "boolean"
     },
     {
      "type": "null"
     }
    ]
   }
  },
  "required": [
   "name"
  ],
  "type": "object"
 },
 "FunctionParameters": {
  "additionalProperties": true,
  "type": "object"
 },
 "Metadata": {
  "anyOf": [
   {
    "additionalProperties": {
     "type": "string"
    },
    "type": "object"
   },
   {
    "type": "null"
   }
  ]
 },
 "ModelIdsShared": {
  "anyOf": [
   {
    "type": "string"
   },
   {
    "enum": [
     "gpt-5.6-sol",
     "gpt-5.6-terra",
     "gpt-5.6-luna",
     "gpt-5.5",
     "gpt-5.5-2026-04-23",
     "gpt-5.4",
     "gpt-5.4-mini",
     "gpt-5.4-nano",
     "gpt-5.4-mini-2026-03-17",
     "gpt-5.4-nano-2026-03-17",
     "gpt-5.3-chat-latest",
     "gpt-5.2",
     "gpt-5.2-2025-12-11",
     "gpt-5.2-chat-latest",
     "gpt-5.2-pro",
     "gpt-5.2-pro-2025-12-11",
     "gpt-5.1",
     "gpt-5.1-2025-11-13",
     "gpt-5.1-codex",
     "gpt-5.1-mini",
     "gpt-5.1-chat-latest",
     "gpt-5",
     "gpt-5-mini",
     "gpt-5-nano",
     "gpt-5-2025-08-07",
     "gpt-5-mini-2025-08-07",
     "gpt-5-nano-2025-08-07",
     "gpt-5-chat-latest",
     "gpt-4.1",
     "gpt-4.1-mini",
     "gpt-4.1-nano",
     "gpt-4.1-2025-04-14",
     "gpt-4.1-mini-2025-04-14",
     "gpt-4.1-nano-2025-04-14",
     "o4-mini",
     "o4-mini-2025-04-16",
     "o3",
     "o3-2025-04-16",
     "o3-mini",
     "o3-mini-2025-01-31",
     "o1",
     "o1-2024-12-17",
     "o1-preview",
     "o1-preview-2024-09-12",
     "o1-mini",
     "o1-mini-2024-09-12",
     "gpt-4o",
     "gpt-4o-2024-11-20",
     "gpt-4o-2024-08-06",
     "gpt-4o-2024-05-13",
     "gpt-4o-audio-preview",
     "gpt-4o-audio-preview-2024-10-01",
     "gpt-4o-audio-preview-2024-12-17",
     "gpt-4o-audio-preview-2025-06-03",
     "gpt-4o-mini-audio-preview",
     "gpt-4o-mini-audio-preview-2024-12-17",
     "gpt-4o-search-preview",
     "gpt-4o-mini-search-preview",
     "gpt-4o-search-preview-2025-03-11",
     "gpt-4o-mini-search-preview-2025-03-11",
     "chatgpt-4o-latest",
     "codex-mini-latest",
     "gpt-4o-mini",
     "gpt-4o-mini-2024-07-18",
     "gpt-4-turbo",
     "gpt-4-turbo-2024-04-09",
     "gpt-4-0125-preview",
     "gpt-4-turbo-preview",
     "gpt-4-1106-preview",
     "gpt-4-vision-preview",
     "gpt-4",
     "gpt-4-0314",
     "gpt-4-0613",
     "gpt-4-32k",
     "gpt-4-32k-0314",
     "gpt-4-32k-0613",
     "gpt-3.5-turbo",
     "gpt-3.5-turbo-16k",
     "gpt-3.5-turbo-0301",
     "gpt-3.5-turbo-0613",
     "gpt-3.5-turbo-1106",
     "gpt-3.5-turbo-0125",
     "gpt-3.5-turbo-16k-0613"
    ],
    "type": "string"
   }
  ]
 },
 "ModelResponseProperties": {
  "properties": {
   "metadata": {
    "$ref": "#/definitions/Metadata"
   },
   "prompt_cache_key": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "prompt_cache_retention": {
    "anyOf": [
     {
      "enum": [
       "in_memory",
       "24h"
      ],
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "safety_identifier": {
    "anyOf": [
     {
      "maxLength": 64,
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "temperature": {
    "anyOf": [
     {
      "maximum": 2,
      "minimum": 0,
      "type": "number"
     },
     {
      "type": "null"
     }
    ]
   },
   "top_logprobs": {
    "anyOf": [
     {
      "maximum": 20,
      "minimum": 0,
      "type": "integer"
     },
     {
      "type": "null"
     }
    ]
   },
   "top_p": {
    "anyOf": [
     {
      "maximum": 1,
      "minimum": 0,
      "type": "number"
     },
     {
      "type": "null"
     }
    ]
   },
   "user": {
    "type": "string"
   }
  },
  "type": "object"
 },
 "ModerationConfigParam": {
  "properties": {
   "mode": {
    "$ref": "#/definitions/ModerationMode"
   }
  },
  "required": [
   "mode"
  ],
  "type": "object"
 },
 "ModerationMode": {
  "enum": [
   "score",
   "block"
  ],
  "type": "string"
 },
 "ModerationParam": {
  "properties": {
   "model": {
    "type": "string"
   },
   "policy": {
    "anyOf": [
     {
      "$ref": "#/definitions/ModerationPolicyParam"
     },
     {
      "type": "null"
     }
    ]
   }
  },
  "required": [
   "model"
  ],
  "type": "object"
 },
 "ModerationPolicyParam": {
  "properties": {
   "input": {
    "anyOf": [
     {
      "$ref": "#/definitions/ModerationConfigParam"
     },
     {
      "type": "null"
     }
    ]
   },
   "output": {
    "anyOf": [
     {
      "$ref": "#/definitions/ModerationConfigParam"
     },
     {
      "type": "null"
     }
    ]
   }
  },
  "required": [],
  "type": "object"
 },
 "ParallelToolCalls": {
  "type": "boolean"
 },
 "PredictionContent": {
  "properties": {
   "content": {
    "oneOf": [
     {
      "type": "string"
     },
     {
      "items": {
       "$ref": "#/definitions/ChatCompletionRequestMessageContentPartText"
      },
      "minItems": 1,
      "type": "array"
     }
    ]
   },
   "type": {
    "enum": [
     "content"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "content"
  ],
  "type": "object"
 },
 "PromptCacheBreakpointParam": {
  "properties": {
   "mode": {
    "enum": [
     "explicit"
    ],
    "type": "string"
   }
  },
  "required": [
   "mode"
  ],
  "type": "object"
 },
 "PromptCacheModeEnum": {
  "enum": [
   "implicit",
   "explicit"
  ],
  "type": "string"
 },
 "PromptCacheOptionsParam": {
  "properties": {
   "mode": {
    "$ref": "#/definitions/PromptCacheModeEnum"
   },
   "ttl": {
    "$ref": "#/definitions/PromptCacheTTLEnum"
   }
  },
  "required": [],
  "type": "object"
 },
 "PromptCacheTTLEnum": {
  "enum": [
   "30m"
  ],
  "type": "string"
 },
 "ReasoningEffort": {
  "anyOf": [
   {
    "enum": [
     "none",
     "minimal",
     "low",
     "medium",
     "high",
     "xhigh",
     "max"
    ],
    "type": "string"
   },
   {
    "type": "null"
   }
  ]
 },
 "ResponseFormatJsonObject": {
  "properties": {
   "type": {
    "enum": [
     "json_object"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ResponseFormatJsonSchema": {
  "properties": {
   "json_schema": {
    "properties": {
     "description": {
      "type": "string"
     },
     "name": {
      "type": "string"
     },
     "schema": {
      "$ref": "#/definitions/ResponseFormatJsonSchemaSchema"
     },
     "strict": {
      "anyOf": [
       {
        "type": "boolean"
       },
       {
        "type": "null"
       }
      ]
     }
    },
    "required": [
     "name"
    ],
    "type": "object"
   },
   "type": {
    "enum": [
     "json_schema"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "json_schema"
  ],
  "type": "object"
 },
 "ResponseFormatJsonSchemaSchema": {
  "additionalProperties": true,
  "type": "object"
 },
 "ResponseFormatText": {
  "properties": {
   "type": {
    "enum": [
     "text"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ResponseModalities": {
  "anyOf": [
   {
    "items": {
     "enum": [
      "text",
      "audio"
     ],
     "type": "string"
    },
    "type": "array"
   },
   {
    "type": "null"
   }
  ]
 },
 "ServiceTier": {
  "anyOf": [
   {
    "enum": [
     "auto",
     "default",
     "flex",
     "scale",
     "priority",
     "fast"
    ],
    "type": "string"
   },
   {
    "type": "null"
   }
  ]
 },
 "StopConfiguration": {
  "anyOf": [
   {
    "oneOf": [
     {
      "anyOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     },
     {
      "items": {
       "type": "string"
      },
      "maxItems": 4,
      "minItems": 1,
      "type": "array"
     }
    ]
   },
   {
    "type": "null"
   }
  ]
 },
 "Verbosity": {
  "anyOf": [
   {
    "enum": [
     "low",
     "medium",
     "high"
    ],
    "type": "string"
   },
   {
    "type": "null"
   }
  ]
 },
 "VoiceIdsOrCustomVoice": {
  "anyOf": [
   {
    "$ref": "#/definitions/VoiceIdsShared"
   },
   {
    "additionalProperties": false,
    "properties": {
     "id": {
      "type": "string"
     }
    },
    "required": [
     "id"
    ],
    "type": "object"
   }
  ]
 },
 "VoiceIdsShared": {
  "anyOf": [
   {
    "type": "string"
   },
   {
    "enum": [
     "alloy",
     "ash",
     "ballad",
     "coral",
     "echo",
     "sage",
     "shimmer",
     "verse",
     "marin",
     "cedar"
    ],
    "type": "string"
   }
  ]
 },
 "WebSearchContextSize": {
  "enum": [
   "low",
   "medium",
   "high"
  ],
  "type": "string"
 },
 "WebSearchLocation": {
  "properties": {
   "city": {
    "type": "string"
   },
   "country": {
    "type": "string"
   },
   "region": {
    "type": "string"
   },
   "timezone": {
    "type": "string"
   }
  },
  "type": "object"
 }
}''')
