"""The request side of OpenAI's Responses API, as JSON Schema (draft 7) for the server.

Generated from tests/data/openai-responses.openapi.json (OpenAI's official description,
openai/openai-openapi, info.version 2.3.0) by keeping the schemas a CreateResponse request
reaches and only their validation keywords (descriptions dropped, OpenAPI's `nullable` written
as `anyOf [..., null]`). A test (tests/test_server_schema.py) checks that this copy still equals
what the reference gives; run that file as a script to regenerate it. It lives in the package
because the server needs it and an installed package has no tests/ folder.
"""

import json

SCHEMAS = json.loads(r'''{
 "AdditionalToolsItemParam": {
  "properties": {
   "id": {
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
     "developer"
    ],
    "type": "string"
   },
   "tools": {
    "items": {
     "$ref": "#/definitions/Tool"
    },
    "type": "array"
   },
   "type": {
    "enum": [
     "additional_tools"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "role",
   "tools"
  ],
  "type": "object"
 },
 "Annotation": {
  "oneOf": [
   {
    "$ref": "#/definitions/FileCitationBody"
   },
   {
    "$ref": "#/definitions/UrlCitationBody"
   },
   {
    "$ref": "#/definitions/ContainerFileCitationBody"
   },
   {
    "$ref": "#/definitions/FilePath"
   }
  ]
 },
 "ApplyPatchCallOutputStatusParam": {
  "enum": [
   "completed",
   "failed"
  ],
  "type": "string"
 },
 "ApplyPatchCallStatusParam": {
  "enum": [
   "in_progress",
   "completed"
  ],
  "type": "string"
 },
 "ApplyPatchCreateFileOperationParam": {
  "properties": {
   "diff": {
    "maxLength": 10485760,
    "type": "string"
   },
   "path": {
    "type": "string"
   },
   "type": {
    "enum": [
     "create_file"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "path",
   "diff"
  ],
  "type": "object"
 },
 "ApplyPatchDeleteFileOperationParam": {
  "properties": {
   "path": {
    "type": "string"
   },
   "type": {
    "enum": [
     "delete_file"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "path"
  ],
  "type": "object"
 },
 "ApplyPatchOperationParam": {
  "oneOf": [
   {
    "$ref": "#/definitions/ApplyPatchCreateFileOperationParam"
   },
   {
    "$ref": "#/definitions/ApplyPatchDeleteFileOperationParam"
   },
   {
    "$ref": "#/definitions/ApplyPatchUpdateFileOperationParam"
   }
  ]
 },
 "ApplyPatchToolCallItemParam": {
  "properties": {
   "call_id": {
    "maxLength": 64,
    "type": "string"
   },
   "caller": {
    "anyOf": [
     {
      "$ref": "#/definitions/ToolCallCallerParam"
     },
     {
      "type": "null"
     }
    ]
   },
   "id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "operation": {
    "$ref": "#/definitions/ApplyPatchOperationParam"
   },
   "status": {
    "$ref": "#/definitions/ApplyPatchCallStatusParam"
   },
   "type": {
    "enum": [
     "apply_patch_call"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "call_id",
   "status",
   "operation"
  ],
  "type": "object"
 },
 "ApplyPatchToolCallOutputItemParam": {
  "properties": {
   "call_id": {
    "maxLength": 64,
    "type": "string"
   },
   "caller": {
    "anyOf": [
     {
      "$ref": "#/definitions/ToolCallCallerParam"
     },
     {
      "type": "null"
     }
    ]
   },
   "id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "output": {
    "anyOf": [
     {
      "maxLength": 10485760,
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "status": {
    "$ref": "#/definitions/ApplyPatchCallOutputStatusParam"
   },
   "type": {
    "enum": [
     "apply_patch_call_output"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "call_id",
   "status"
  ],
  "type": "object"
 },
 "ApplyPatchToolParam": {
  "properties": {
   "allowed_callers": {
    "anyOf": [
     {
      "items": {
       "$ref": "#/definitions/CallableToolAllowedCaller"
      },
      "minItems": 1,
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "apply_patch"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ApplyPatchUpdateFileOperationParam": {
  "properties": {
   "diff": {
    "maxLength": 10485760,
    "type": "string"
   },
   "path": {
    "type": "string"
   },
   "type": {
    "enum": [
     "update_file"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "path",
   "diff"
  ],
  "type": "object"
 },
 "ApproximateLocation": {
  "properties": {
   "city": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "country": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "region": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "timezone": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "approximate"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "AutoCodeInterpreterToolParam": {
  "properties": {
   "file_ids": {
    "items": {
     "type": "string"
    },
    "maxItems": 50,
    "type": "array"
   },
   "memory_limit": {
    "anyOf": [
     {
      "$ref": "#/definitions/ContainerMemoryLimit"
     },
     {
      "type": "null"
     }
    ]
   },
   "network_policy": {
    "oneOf": [
     {
      "$ref": "#/definitions/ContainerNetworkPolicyDisabledParam"
     },
     {
      "$ref": "#/definitions/ContainerNetworkPolicyAllowlistParam"
     }
    ]
   },
   "type": {
    "enum": [
     "auto"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "CallableToolAllowedCaller": {
  "enum": [
   "direct",
   "programmatic"
  ],
  "type": "string"
 },
 "ClickButtonType": {
  "enum": [
   "left",
   "right",
   "wheel",
   "back",
   "forward"
  ],
  "type": "string"
 },
 "ClickParam": {
  "properties": {
   "button": {
    "$ref": "#/definitions/ClickButtonType"
   },
   "keys": {
    "anyOf": [
     {
      "items": {
       "type": "string"
      },
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "click"
    ],
    "type": "string"
   },
   "x": {
    "type": "integer"
   },
   "y": {
    "type": "integer"
   }
  },
  "required": [
   "type",
   "button",
   "x",
   "y"
  ],
  "type": "object"
 },
 "CodeInterpreterOutputImage": {
  "properties": {
   "type": {
    "enum": [
     "image"
    ],
    "type": "string"
   },
   "url": {
    "type": "string"
   }
  },
  "required": [
   "type",
   "url"
  ],
  "type": "object"
 },
 "CodeInterpreterOutputLogs": {
  "properties": {
   "logs": {
    "type": "string"
   },
   "type": {
    "enum": [
     "logs"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "logs"
  ],
  "type": "object"
 },
 "CodeInterpreterTool": {
  "properties": {
   "allowed_callers": {
    "anyOf": [
     {
      "items": {
       "$ref": "#/definitions/CallableToolAllowedCaller"
      },
      "minItems": 1,
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "container": {
    "oneOf": [
     {
      "type": "string"
     },
     {
      "$ref": "#/definitions/AutoCodeInterpreterToolParam"
     }
    ]
   },
   "type": {
    "enum": [
     "code_interpreter"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "container"
  ],
  "type": "object"
 },
 "CodeInterpreterToolCall": {
  "properties": {
   "code": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "container_id": {
    "type": "string"
   },
   "id": {
    "type": "string"
   },
   "outputs": {
    "anyOf": [
     {
      "items": {
       "oneOf": [
        {
         "$ref": "#/definitions/CodeInterpreterOutputLogs"
        },
        {
         "$ref": "#/definitions/CodeInterpreterOutputImage"
        }
       ]
      },
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "status": {
    "enum": [
     "in_progress",
     "completed",
     "incomplete",
     "interpreting",
     "failed"
    ],
    "type": "string"
   },
   "type": {
    "enum": [
     "code_interpreter_call"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "id",
   "status",
   "container_id",
   "code",
   "outputs"
  ],
  "type": "object"
 },
 "CompactionSummaryItemParam": {
  "properties": {
   "encrypted_content": {
    "maxLength": 20971520,
    "type": "string"
   },
   "id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "compaction"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "encrypted_content"
  ],
  "type": "object"
 },
 "CompactionTriggerItemParam": {
  "properties": {
   "type": {
    "enum": [
     "compaction_trigger"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ComparisonFilter": {
  "additionalProperties": false,
  "properties": {
   "key": {
    "type": "string"
   },
   "type": {
    "enum": [
     "eq",
     "ne",
     "gt",
     "gte",
     "lt",
     "lte",
     "in",
     "nin"
    ],
    "type": "string"
   },
   "value": {
    "oneOf": [
     {
      "type": "string"
     },
     {
      "type": "number"
     },
     {
      "type": "boolean"
     },
     {
      "items": {
       "oneOf": [
        {
         "type": "string"
        },
        {
         "type": "number"
        }
       ]
      },
      "type": "array"
     }
    ]
   }
  },
  "required": [
   "type",
   "key",
   "value"
  ],
  "type": "object"
 },
 "CompoundFilter": {
  "additionalProperties": false,
  "properties": {
   "filters": {
    "items": {
     "oneOf": [
      {
       "$ref": "#/definitions/ComparisonFilter"
      },
      {}
     ]
    },
    "type": "array"
   },
   "type": {
    "enum": [
     "and",
     "or"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "filters"
  ],
  "type": "object"
 },
 "ComputerAction": {
  "oneOf": [
   {
    "$ref": "#/definitions/ClickParam"
   },
   {
    "$ref": "#/definitions/DoubleClickAction"
   },
   {
    "$ref": "#/definitions/DragParam"
   },
   {
    "$ref": "#/definitions/KeyPressAction"
   },
   {
    "$ref": "#/definitions/MoveParam"
   },
   {
    "$ref": "#/definitions/ScreenshotParam"
   },
   {
    "$ref": "#/definitions/ScrollParam"
   },
   {
    "$ref": "#/definitions/TypeParam"
   },
   {
    "$ref": "#/definitions/WaitParam"
   }
  ]
 },
 "ComputerActionList": {
  "items": {
   "$ref": "#/definitions/ComputerAction"
  },
  "type": "array"
 },
 "ComputerCallOutputItemParam": {
  "properties": {
   "acknowledged_safety_checks": {
    "anyOf": [
     {
      "items": {
       "$ref": "#/definitions/ComputerCallSafetyCheckParam"
      },
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "call_id": {
    "maxLength": 64,
    "type": "string"
   },
   "id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "output": {
    "$ref": "#/definitions/ComputerScreenshotImage"
   },
   "status": {
    "anyOf": [
     {
      "$ref": "#/definitions/FunctionCallItemStatus"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "computer_call_output"
    ],
    "type": "string"
   }
  },
  "required": [
   "call_id",
   "type",
   "output"
  ],
  "type": "object"
 },
 "ComputerCallSafetyCheckParam": {
  "properties": {
   "code": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "id": {
    "type": "string"
   },
   "message": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   }
  },
  "required": [
   "id"
  ],
  "type": "object"
 },
 "ComputerEnvironment": {
  "enum": [
   "windows",
   "mac",
   "linux",
   "ubuntu",
   "browser"
  ],
  "type": "string"
 },
 "ComputerScreenshotImage": {
  "properties": {
   "file_id": {
    "type": "string"
   },
   "image_url": {
    "type": "string"
   },
   "type": {
    "enum": [
     "computer_screenshot"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ComputerTool": {
  "properties": {
   "type": {
    "enum": [
     "computer"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ComputerToolCall": {
  "properties": {
   "action": {
    "$ref": "#/definitions/ComputerAction"
   },
   "actions": {
    "$ref": "#/definitions/ComputerActionList"
   },
   "call_id": {
    "type": "string"
   },
   "id": {
    "type": "string"
   },
   "pending_safety_checks": {
    "items": {
     "$ref": "#/definitions/ComputerCallSafetyCheckParam"
    },
    "type": "array"
   },
   "status": {
    "enum": [
     "in_progress",
     "completed",
     "incomplete"
    ],
    "type": "string"
   },
   "type": {
    "enum": [
     "computer_call"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "id",
   "call_id",
   "pending_safety_checks",
   "status"
  ],
  "type": "object"
 },
 "ComputerUsePreviewTool": {
  "properties": {
   "display_height": {
    "type": "integer"
   },
   "display_width": {
    "type": "integer"
   },
   "environment": {
    "$ref": "#/definitions/ComputerEnvironment"
   },
   "type": {
    "enum": [
     "computer_use_preview"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "environment",
   "display_width",
   "display_height"
  ],
  "type": "object"
 },
 "ContainerAutoParam": {
  "properties": {
   "file_ids": {
    "items": {
     "type": "string"
    },
    "maxItems": 50,
    "type": "array"
   },
   "memory_limit": {
    "anyOf": [
     {
      "$ref": "#/definitions/ContainerMemoryLimit"
     },
     {
      "type": "null"
     }
    ]
   },
   "network_policy": {
    "oneOf": [
     {
      "$ref": "#/definitions/ContainerNetworkPolicyDisabledParam"
     },
     {
      "$ref": "#/definitions/ContainerNetworkPolicyAllowlistParam"
     }
    ]
   },
   "skills": {
    "items": {
     "oneOf": [
      {
       "$ref": "#/definitions/SkillReferenceParam"
      },
      {
       "$ref": "#/definitions/InlineSkillParam"
      }
     ]
    },
    "maxItems": 200,
    "type": "array"
   },
   "type": {
    "enum": [
     "container_auto"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ContainerFileCitationBody": {
  "properties": {
   "container_id": {
    "type": "string"
   },
   "end_index": {
    "type": "integer"
   },
   "file_id": {
    "type": "string"
   },
   "filename": {
    "type": "string"
   },
   "start_index": {
    "type": "integer"
   },
   "type": {
    "enum": [
     "container_file_citation"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "container_id",
   "file_id",
   "start_index",
   "end_index",
   "filename"
  ],
  "type": "object"
 },
 "ContainerMemoryLimit": {
  "enum": [
   "1g",
   "4g",
   "16g",
   "64g"
  ],
  "type": "string"
 },
 "ContainerNetworkPolicyAllowlistParam": {
  "properties": {
   "allowed_domains": {
    "items": {
     "type": "string"
    },
    "minItems": 1,
    "type": "array"
   },
   "domain_secrets": {
    "items": {
     "$ref": "#/definitions/ContainerNetworkPolicyDomainSecretParam"
    },
    "minItems": 1,
    "type": "array"
   },
   "type": {
    "enum": [
     "allowlist"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "allowed_domains"
  ],
  "type": "object"
 },
 "ContainerNetworkPolicyDisabledParam": {
  "properties": {
   "type": {
    "enum": [
     "disabled"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ContainerNetworkPolicyDomainSecretParam": {
  "properties": {
   "domain": {
    "type": "string"
   },
   "name": {
    "type": "string"
   },
   "value": {
    "maxLength": 10485760,
    "type": "string"
   }
  },
  "required": [
   "domain",
   "name",
   "value"
  ],
  "type": "object"
 },
 "ContainerReferenceParam": {
  "properties": {
   "container_id": {
    "type": "string"
   },
   "type": {
    "enum": [
     "container_reference"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "container_id"
  ],
  "type": "object"
 },
 "ContextManagementParam": {
  "properties": {
   "compact_threshold": {
    "anyOf": [
     {
      "minimum": 1000,
      "type": "integer"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ConversationParam": {
  "oneOf": [
   {
    "type": "string"
   },
   {
    "$ref": "#/definitions/ConversationParam-2"
   }
  ]
 },
 "ConversationParam-2": {
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
 "CoordParam": {
  "properties": {
   "x": {
    "type": "integer"
   },
   "y": {
    "type": "integer"
   }
  },
  "required": [
   "x",
   "y"
  ],
  "type": "object"
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
 "CreateResponse": {
  "allOf": [
   {
    "$ref": "#/definitions/CreateModelResponseProperties"
   },
   {
    "$ref": "#/definitions/ResponseProperties"
   },
   {
    "properties": {
     "context_management": {
      "anyOf": [
       {
        "items": {
         "$ref": "#/definitions/ContextManagementParam"
        },
        "minItems": 1,
        "type": "array"
       },
       {
        "type": "null"
       }
      ]
     },
     "conversation": {
      "anyOf": [
       {
        "$ref": "#/definitions/ConversationParam"
       },
       {
        "type": "null"
       }
      ]
     },
     "include": {
      "anyOf": [
       {
        "items": {
         "$ref": "#/definitions/IncludeEnum"
        },
        "type": "array"
       },
       {
        "type": "null"
       }
      ]
     },
     "input": {
      "$ref": "#/definitions/InputParam"
     },
     "instructions": {
      "anyOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     },
     "max_output_tokens": {
      "anyOf": [
       {
        "minimum": 16,
        "type": "integer"
       },
       {
        "type": "null"
       }
      ]
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
     "parallel_tool_calls": {
      "anyOf": [
       {
        "type": "boolean"
       },
       {
        "type": "null"
       }
      ]
     },
     "reasoning": {
      "anyOf": [
       {
        "$ref": "#/definitions/Reasoning"
       },
       {
        "type": "null"
       }
      ]
     },
     "service_tier": {
      "$ref": "#/definitions/ServiceTierResponses"
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
      "$ref": "#/definitions/ResponseStreamOptions"
     },
     "truncation": {
      "anyOf": [
       {
        "enum": [
         "auto",
         "disabled"
        ],
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     }
    },
    "type": "object"
   }
  ]
 },
 "CustomGrammarFormatParam": {
  "properties": {
   "definition": {
    "type": "string"
   },
   "syntax": {
    "$ref": "#/definitions/GrammarSyntax1"
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
   "syntax",
   "definition"
  ],
  "type": "object"
 },
 "CustomTextFormatParam": {
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
 "CustomToolCall": {
  "properties": {
   "call_id": {
    "type": "string"
   },
   "caller": {
    "anyOf": [
     {
      "$ref": "#/definitions/ToolCallCaller"
     },
     {
      "type": "null"
     }
    ]
   },
   "id": {
    "type": "string"
   },
   "input": {
    "type": "string"
   },
   "name": {
    "type": "string"
   },
   "namespace": {
    "type": "string"
   },
   "type": {
    "enum": [
     "custom_tool_call"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "call_id",
   "name",
   "input"
  ],
  "type": "object"
 },
 "CustomToolCallOutput": {
  "properties": {
   "call_id": {
    "type": "string"
   },
   "caller": {
    "anyOf": [
     {
      "$ref": "#/definitions/ToolCallCallerParam"
     },
     {
      "type": "null"
     }
    ]
   },
   "id": {
    "type": "string"
   },
   "output": {
    "oneOf": [
     {
      "type": "string"
     },
     {
      "items": {
       "$ref": "#/definitions/FunctionAndCustomToolCallOutput"
      },
      "type": "array"
     }
    ]
   },
   "type": {
    "enum": [
     "custom_tool_call_output"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "call_id",
   "output"
  ],
  "type": "object"
 },
 "CustomToolParam": {
  "properties": {
   "allowed_callers": {
    "anyOf": [
     {
      "items": {
       "$ref": "#/definitions/CallableToolAllowedCaller"
      },
      "minItems": 1,
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "defer_loading": {
    "type": "boolean"
   },
   "description": {
    "type": "string"
   },
   "format": {
    "oneOf": [
     {
      "$ref": "#/definitions/CustomTextFormatParam"
     },
     {
      "$ref": "#/definitions/CustomGrammarFormatParam"
     }
    ]
   },
   "name": {
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
   "type",
   "name"
  ],
  "type": "object"
 },
 "DetailEnum": {
  "enum": [
   "low",
   "high",
   "auto",
   "original"
  ],
  "type": "string"
 },
 "DirectToolCallCaller": {
  "properties": {
   "type": {
    "enum": [
     "direct"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "DirectToolCallCallerParam": {
  "properties": {
   "type": {
    "enum": [
     "direct"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "DoubleClickAction": {
  "properties": {
   "keys": {
    "anyOf": [
     {
      "items": {
       "type": "string"
      },
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "double_click"
    ],
    "type": "string"
   },
   "x": {
    "type": "integer"
   },
   "y": {
    "type": "integer"
   }
  },
  "required": [
   "type",
   "x",
   "y",
   "keys"
  ],
  "type": "object"
 },
 "DragParam": {
  "properties": {
   "keys": {
    "anyOf": [
     {
      "items": {
       "type": "string"
      },
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "path": {
    "items": {
     "$ref": "#/definitions/CoordParam"
    },
    "type": "array"
   },
   "type": {
    "enum": [
     "drag"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "path"
  ],
  "type": "object"
 },
 "EasyInputMessage": {
  "properties": {
   "content": {
    "oneOf": [
     {
      "type": "string"
     },
     {
      "$ref": "#/definitions/InputMessageContentList"
     }
    ]
   },
   "phase": {
    "anyOf": [
     {
      "$ref": "#/definitions/MessagePhase"
     },
     {
      "type": "null"
     }
    ]
   },
   "role": {
    "enum": [
     "user",
     "assistant",
     "system",
     "developer"
    ],
    "type": "string"
   },
   "type": {
    "enum": [
     "message"
    ],
    "type": "string"
   }
  },
  "required": [
   "role",
   "content"
  ],
  "type": "object"
 },
 "EmptyModelParam": {
  "properties": {},
  "required": [],
  "type": "object"
 },
 "FileCitationBody": {
  "properties": {
   "file_id": {
    "type": "string"
   },
   "filename": {
    "type": "string"
   },
   "index": {
    "type": "integer"
   },
   "type": {
    "enum": [
     "file_citation"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "file_id",
   "index",
   "filename"
  ],
  "type": "object"
 },
 "FileDetailEnum": {
  "enum": [
   "auto",
   "low",
   "high"
  ],
  "type": "string"
 },
 "FileInputDetail": {
  "enum": [
   "auto",
   "low",
   "high"
  ],
  "type": "string"
 },
 "FilePath": {
  "properties": {
   "file_id": {
    "type": "string"
   },
   "index": {
    "type": "integer"
   },
   "type": {
    "enum": [
     "file_path"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "file_id",
   "index"
  ],
  "type": "object"
 },
 "FileSearchTool": {
  "properties": {
   "filters": {
    "anyOf": [
     {
      "$ref": "#/definitions/Filters"
     },
     {
      "type": "null"
     }
    ]
   },
   "max_num_results": {
    "type": "integer"
   },
   "ranking_options": {
    "$ref": "#/definitions/RankingOptions"
   },
   "type": {
    "enum": [
     "file_search"
    ],
    "type": "string"
   },
   "vector_store_ids": {
    "items": {
     "type": "string"
    },
    "type": "array"
   }
  },
  "required": [
   "type",
   "vector_store_ids"
  ],
  "type": "object"
 },
 "FileSearchToolCall": {
  "properties": {
   "id": {
    "type": "string"
   },
   "queries": {
    "items": {
     "type": "string"
    },
    "type": "array"
   },
   "results": {
    "anyOf": [
     {
      "items": {
       "properties": {
        "attributes": {
         "$ref": "#/definitions/VectorStoreFileAttributes"
        },
        "file_id": {
         "type": "string"
        },
        "filename": {
         "type": "string"
        },
        "score": {
         "type": "number"
        },
        "text": {
         "type": "string"
        }
       },
       "type": "object"
      },
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "status": {
    "enum": [
     "in_progress",
     "searching",
     "completed",
     "incomplete",
     "failed"
    ],
    "type": "string"
   },
   "type": {
    "enum": [
     "file_search_call"
    ],
    "type": "string"
   }
  },
  "required": [
   "id",
   "type",
   "status",
   "queries"
  ],
  "type": "object"
 },
 "Filters": {
  "anyOf": [
   {
    "$ref": "#/definitions/ComparisonFilter"
   },
   {
    "$ref": "#/definitions/CompoundFilter"
   }
  ]
 },
 "FunctionAndCustomToolCallOutput": {
  "oneOf": [
   {
    "$ref": "#/definitions/InputTextContent"
   },
   {
    "$ref": "#/definitions/InputImageContent"
   },
   {
    "$ref": "#/definitions/InputFileContent"
   }
  ]
 },
 "FunctionCallItemStatus": {
  "enum": [
   "in_progress",
   "completed",
   "incomplete"
  ],
  "type": "string"
 },
 "FunctionCallOutputItemParam": {
  "properties": {
   "call_id": {
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
   "caller": {
    "anyOf": [
     {
      "$ref": "#/definitions/ToolCallCallerParam"
     },
     {
      "type": "null"
     }
    ]
   },
   "id": {
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
    "anyOf": [
     {
      "maxLength": 128,
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "namespace": {
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
   "output": {
    "oneOf": [
     {
      "maxLength": 10485760,
      "type": "string"
     },
     {
      "items": {
       "oneOf": [
        {
         "$ref": "#/definitions/InputTextContentParam"
        },
        {
         "$ref": "#/definitions/InputImageContentParamAutoParam"
        },
        {
         "$ref": "#/definitions/InputFileContentParam"
        }
       ]
      },
      "type": "array"
     }
    ]
   },
   "status": {
    "anyOf": [
     {
      "$ref": "#/definitions/FunctionCallItemStatus"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "function_call_output"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "output"
  ],
  "type": "object"
 },
 "FunctionShellActionParam": {
  "properties": {
   "commands": {
    "items": {
     "type": "string"
    },
    "type": "array"
   },
   "max_output_length": {
    "anyOf": [
     {
      "type": "integer"
     },
     {
      "type": "null"
     }
    ]
   },
   "timeout_ms": {
    "anyOf": [
     {
      "type": "integer"
     },
     {
      "type": "null"
     }
    ]
   }
  },
  "required": [
   "commands"
  ],
  "type": "object"
 },
 "FunctionShellCallItemParam": {
  "properties": {
   "action": {
    "$ref": "#/definitions/FunctionShellActionParam"
   },
   "call_id": {
    "maxLength": 64,
    "type": "string"
   },
   "caller": {
    "anyOf": [
     {
      "$ref": "#/definitions/ToolCallCallerParam"
     },
     {
      "type": "null"
     }
    ]
   },
   "environment": {
    "anyOf": [
     {
      "oneOf": [
       {
        "$ref": "#/definitions/LocalEnvironmentParam"
       },
       {
        "$ref": "#/definitions/ContainerReferenceParam"
       }
      ]
     },
     {
      "type": "null"
     }
    ]
   },
   "id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "status": {
    "anyOf": [
     {
      "$ref": "#/definitions/FunctionShellCallItemStatus"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "shell_call"
    ],
    "type": "string"
   }
  },
  "required": [
   "call_id",
   "type",
   "action"
  ],
  "type": "object"
 },
 "FunctionShellCallItemStatus": {
  "enum": [
   "in_progress",
   "completed",
   "incomplete"
  ],
  "type": "string"
 },
 "FunctionShellCallOutputContentParam": {
  "properties": {
   "outcome": {
    "$ref": "#/definitions/FunctionShellCallOutputOutcomeParam"
   },
   "stderr": {
    "maxLength": 10485760,
    "type": "string"
   },
   "stdout": {
    "maxLength": 10485760,
    "type": "string"
   }
  },
  "required": [
   "stdout",
   "stderr",
   "outcome"
  ],
  "type": "object"
 },
 "FunctionShellCallOutputExitOutcomeParam": {
  "properties": {
   "exit_code": {
    "type": "integer"
   },
   "type": {
    "enum": [
     "exit"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "exit_code"
  ],
  "type": "object"
 },
 "FunctionShellCallOutputItemParam": {
  "properties": {
   "call_id": {
    "maxLength": 64,
    "type": "string"
   },
   "caller": {
    "anyOf": [
     {
      "$ref": "#/definitions/ToolCallCallerParam"
     },
     {
      "type": "null"
     }
    ]
   },
   "id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "max_output_length": {
    "anyOf": [
     {
      "type": "integer"
     },
     {
      "type": "null"
     }
    ]
   },
   "output": {
    "items": {
     "$ref": "#/definitions/FunctionShellCallOutputContentParam"
    },
    "type": "array"
   },
   "status": {
    "anyOf": [
     {
      "$ref": "#/definitions/FunctionShellCallItemStatus"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "shell_call_output"
    ],
    "type": "string"
   }
  },
  "required": [
   "call_id",
   "type",
   "output"
  ],
  "type": "object"
 },
 "FunctionShellCallOutputOutcomeParam": {
  "oneOf": [
   {
    "$ref": "#/definitions/FunctionShellCallOutputTimeoutOutcomeParam"
   },
   {
    "$ref": "#/definitions/FunctionShellCallOutputExitOutcomeParam"
   }
  ]
 },
 "FunctionShellCallOutputTimeoutOutcomeParam": {
  "properties": {
   "type": {
    "enum": [
     "timeout"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "FunctionShellToolParam": {
  "properties": {
   "allowed_callers": {
    "anyOf": [
     {
      "items": {
       "$ref": "#/definitions/CallableToolAllowedCaller"
      },
      "minItems": 1,
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "environment": {
    "anyOf": [
     {
      "oneOf": [
       {
        "$ref": "#/definitions/ContainerAutoParam"
       },
       {
        "$ref": "#/definitions/LocalEnvironmentParam"
       },
       {
        "$ref": "#/definitions/ContainerReferenceParam"
       }
      ]
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "shell"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "FunctionTool": {
  "properties": {
   "allowed_callers": {
    "anyOf": [
     {
      "items": {
       "$ref": "#/definitions/CallableToolAllowedCaller"
      },
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "defer_loading": {
    "type": "boolean"
   },
   "description": {
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
   "output_schema": {
    "anyOf": [
     {
      "additionalProperties": {},
      "type": "object"
     },
     {
      "type": "null"
     }
    ]
   },
   "parameters": {
    "anyOf": [
     {
      "additionalProperties": {},
      "type": "object"
     },
     {
      "type": "null"
     }
    ]
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
   "name",
   "strict",
   "parameters"
  ],
  "type": "object"
 },
 "FunctionToolCall": {
  "properties": {
   "arguments": {
    "type": "string"
   },
   "call_id": {
    "type": "string"
   },
   "caller": {
    "anyOf": [
     {
      "$ref": "#/definitions/ToolCallCaller"
     },
     {
      "type": "null"
     }
    ]
   },
   "id": {
    "type": "string"
   },
   "name": {
    "type": "string"
   },
   "namespace": {
    "type": "string"
   },
   "status": {
    "enum": [
     "in_progress",
     "completed",
     "incomplete"
    ],
    "type": "string"
   },
   "type": {
    "enum": [
     "function_call"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "call_id",
   "name",
   "arguments"
  ],
  "type": "object"
 },
 "FunctionToolParam": {
  "properties": {
   "allowed_callers": {
    "anyOf": [
     {
      "items": {
       "$ref": "#/definitions/CallableToolAllowedCaller"
      },
      "minItems": 1,
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "defer_loading": {
    "type": "boolean"
   },
   "description": {
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
    "maxLength": 128,
    "type": "string"
   },
   "output_schema": {
    "anyOf": [
     {
      "additionalProperties": {},
      "type": "object"
     },
     {
      "type": "null"
     }
    ]
   },
   "parameters": {
    "anyOf": [
     {
      "$ref": "#/definitions/EmptyModelParam"
     },
     {
      "type": "null"
     }
    ]
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
   },
   "type": {
    "enum": [
     "function"
    ],
    "type": "string"
   }
  },
  "required": [
   "name",
   "type"
  ],
  "type": "object"
 },
 "GrammarSyntax1": {
  "enum": [
   "lark",
   "regex"
  ],
  "type": "string"
 },
 "HTTPError": {
  "properties": {
   "code": {
    "type": "integer"
   },
   "message": {
    "type": "string"
   },
   "type": {
    "enum": [
     "http_error"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "code",
   "message"
  ],
  "type": "object"
 },
 "HybridSearchOptions": {
  "properties": {
   "embedding_weight": {
    "type": "number"
   },
   "text_weight": {
    "type": "number"
   }
  },
  "required": [
   "embedding_weight",
   "text_weight"
  ],
  "type": "object"
 },
 "ImageDetail": {
  "enum": [
   "low",
   "high",
   "auto",
   "original"
  ],
  "type": "string"
 },
 "ImageGenActionEnum": {
  "enum": [
   "generate",
   "edit",
   "auto"
  ],
  "type": "string"
 },
 "ImageGenTool": {
  "properties": {
   "action": {
    "$ref": "#/definitions/ImageGenActionEnum"
   },
   "background": {
    "enum": [
     "transparent",
     "opaque",
     "auto"
    ],
    "type": "string"
   },
   "input_fidelity": {
    "anyOf": [
     {
      "$ref": "#/definitions/InputFidelity"
     },
     {
      "type": "null"
     }
    ]
   },
   "input_image_mask": {
    "additionalProperties": false,
    "properties": {
     "file_id": {
      "type": "string"
     },
     "image_url": {
      "type": "string"
     }
    },
    "required": [],
    "type": "object"
   },
   "model": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "enum": [
       "gpt-image-1",
       "gpt-image-1-mini",
       "gpt-image-1.5",
       "gpt-image-2",
       "gpt-image-2-2026-04-21"
      ],
      "type": "string"
     }
    ]
   },
   "moderation": {
    "enum": [
     "auto",
     "low"
    ],
    "type": "string"
   },
   "output_compression": {
    "maximum": 100,
    "minimum": 0,
    "type": "integer"
   },
   "output_format": {
    "enum": [
     "png",
     "webp",
     "jpeg"
    ],
    "type": "string"
   },
   "partial_images": {
    "maximum": 3,
    "minimum": 0,
    "type": "integer"
   },
   "quality": {
    "enum": [
     "low",
     "medium",
     "high",
     "auto"
    ],
    "type": "string"
   },
   "size": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "enum": [
       "1024x1024",
       "1024x1536",
       "1536x1024",
       "auto"
      ],
      "type": "string"
     }
    ]
   },
   "type": {
    "enum": [
     "image_generation"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ImageGenToolCall": {
  "properties": {
   "id": {
    "type": "string"
   },
   "result": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "status": {
    "enum": [
     "in_progress",
     "completed",
     "generating",
     "failed"
    ],
    "type": "string"
   },
   "type": {
    "enum": [
     "image_generation_call"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "id",
   "status",
   "result"
  ],
  "type": "object"
 },
 "IncludeEnum": {
  "enum": [
   "file_search_call.results",
   "web_search_call.results",
   "web_search_call.action.sources",
   "message.input_image.image_url",
   "computer_call_output.output.image_url",
   "code_interpreter_call.outputs",
   "reasoning.encrypted_content",
   "message.output_text.logprobs"
  ],
  "type": "string"
 },
 "InlineSkillParam": {
  "properties": {
   "description": {
    "type": "string"
   },
   "name": {
    "type": "string"
   },
   "source": {
    "$ref": "#/definitions/InlineSkillSourceParam"
   },
   "type": {
    "enum": [
     "inline"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "name",
   "description",
   "source"
  ],
  "type": "object"
 },
 "InlineSkillSourceParam": {
  "properties": {
   "data": {
    "maxLength": 70254592,
    "type": "string"
   },
   "media_type": {
    "enum": [
     "application/zip"
    ],
    "type": "string"
   },
   "type": {
    "enum": [
     "base64"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "media_type",
   "data"
  ],
  "type": "object"
 },
 "InputContent": {
  "oneOf": [
   {
    "$ref": "#/definitions/InputTextContent"
   },
   {
    "$ref": "#/definitions/InputImageContent"
   },
   {
    "$ref": "#/definitions/InputFileContent"
   }
  ]
 },
 "InputFidelity": {
  "enum": [
   "high",
   "low"
  ],
  "type": "string"
 },
 "InputFileContent": {
  "properties": {
   "detail": {
    "$ref": "#/definitions/FileInputDetail"
   },
   "file_data": {
    "type": "string"
   },
   "file_id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "file_url": {
    "type": "string"
   },
   "filename": {
    "type": "string"
   },
   "prompt_cache_breakpoint": {
    "$ref": "#/definitions/PromptCacheBreakpointConfig"
   },
   "type": {
    "enum": [
     "input_file"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "InputFileContentParam": {
  "properties": {
   "detail": {
    "$ref": "#/definitions/FileDetailEnum"
   },
   "file_data": {
    "anyOf": [
     {
      "maxLength": 73400320,
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "file_id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "file_url": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "filename": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "prompt_cache_breakpoint": {
    "anyOf": [
     {
      "$ref": "#/definitions/PromptCacheBreakpointParam"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "input_file"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "InputImageContent": {
  "properties": {
   "detail": {
    "$ref": "#/definitions/ImageDetail"
   },
   "file_id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "image_url": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "prompt_cache_breakpoint": {
    "$ref": "#/definitions/PromptCacheBreakpointConfig"
   },
   "type": {
    "enum": [
     "input_image"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "detail"
  ],
  "type": "object"
 },
 "InputImageContentParamAutoParam": {
  "properties": {
   "detail": {
    "anyOf": [
     {
      "$ref": "#/definitions/DetailEnum"
     },
     {
      "type": "null"
     }
    ]
   },
   "file_id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "image_url": {
    "anyOf": [
     {
      "maxLength": 20971520,
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "prompt_cache_breakpoint": {
    "anyOf": [
     {
      "$ref": "#/definitions/PromptCacheBreakpointParam"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "input_image"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "InputItem": {
  "oneOf": [
   {
    "$ref": "#/definitions/EasyInputMessage"
   },
   {
    "$ref": "#/definitions/Item",
    "type": "object"
   },
   {
    "$ref": "#/definitions/CompactionTriggerItemParam"
   },
   {
    "$ref": "#/definitions/ItemReferenceParam"
   },
   {
    "$ref": "#/definitions/ProgramItemParam"
   },
   {
    "$ref": "#/definitions/ProgramOutputItemParam"
   }
  ]
 },
 "InputMessage": {
  "properties": {
   "content": {
    "$ref": "#/definitions/InputMessageContentList"
   },
   "role": {
    "enum": [
     "user",
     "system",
     "developer"
    ],
    "type": "string"
   },
   "status": {
    "enum": [
     "in_progress",
     "completed",
     "incomplete"
    ],
    "type": "string"
   },
   "type": {
    "enum": [
     "message"
    ],
    "type": "string"
   }
  },
  "required": [
   "role",
   "content"
  ],
  "type": "object"
 },
 "InputMessageContentList": {
  "items": {
   "$ref": "#/definitions/InputContent"
  },
  "type": "array"
 },
 "InputParam": {
  "oneOf": [
   {
    "type": "string"
   },
   {
    "items": {
     "$ref": "#/definitions/InputItem"
    },
    "type": "array"
   }
  ]
 },
 "InputTextContent": {
  "properties": {
   "prompt_cache_breakpoint": {
    "$ref": "#/definitions/PromptCacheBreakpointConfig"
   },
   "text": {
    "type": "string"
   },
   "type": {
    "enum": [
     "input_text"
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
 "InputTextContentParam": {
  "properties": {
   "prompt_cache_breakpoint": {
    "anyOf": [
     {
      "$ref": "#/definitions/PromptCacheBreakpointParam"
     },
     {
      "type": "null"
     }
    ]
   },
   "text": {
    "maxLength": 10485760,
    "type": "string"
   },
   "type": {
    "enum": [
     "input_text"
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
 "Item": {
  "oneOf": [
   {
    "$ref": "#/definitions/InputMessage"
   },
   {
    "$ref": "#/definitions/OutputMessage"
   },
   {
    "$ref": "#/definitions/FileSearchToolCall"
   },
   {
    "$ref": "#/definitions/ComputerToolCall"
   },
   {
    "$ref": "#/definitions/ComputerCallOutputItemParam"
   },
   {
    "$ref": "#/definitions/WebSearchToolCall"
   },
   {
    "$ref": "#/definitions/FunctionToolCall"
   },
   {
    "$ref": "#/definitions/FunctionCallOutputItemParam"
   },
   {
    "$ref": "#/definitions/ToolSearchCallItemParam"
   },
   {
    "$ref": "#/definitions/ToolSearchOutputItemParam"
   },
   {
    "$ref": "#/definitions/AdditionalToolsItemParam"
   },
   {
    "$ref": "#/definitions/ReasoningItem"
   },
   {
    "$ref": "#/definitions/CompactionSummaryItemParam"
   },
   {
    "$ref": "#/definitions/ImageGenToolCall"
   },
   {
    "$ref": "#/definitions/CodeInterpreterToolCall"
   },
   {
    "$ref": "#/definitions/LocalShellToolCall"
   },
   {
    "$ref": "#/definitions/LocalShellToolCallOutput"
   },
   {
    "$ref": "#/definitions/FunctionShellCallItemParam"
   },
   {
    "$ref": "#/definitions/FunctionShellCallOutputItemParam"
   },
   {
    "$ref": "#/definitions/ApplyPatchToolCallItemParam"
   },
   {
    "$ref": "#/definitions/ApplyPatchToolCallOutputItemParam"
   },
   {
    "$ref": "#/definitions/MCPListTools"
   },
   {
    "$ref": "#/definitions/MCPApprovalRequest"
   },
   {
    "$ref": "#/definitions/MCPApprovalResponse"
   },
   {
    "$ref": "#/definitions/MCPToolCall"
   },
   {
    "$ref": "#/definitions/CustomToolCallOutput"
   },
   {
    "$ref": "#/definitions/CustomToolCall"
   }
  ],
  "type": "object"
 },
 "ItemReferenceParam": {
  "properties": {
   "id": {
    "type": "string"
   },
   "type": {
    "anyOf": [
     {
      "enum": [
       "item_reference"
      ],
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   }
  },
  "required": [
   "id"
  ],
  "type": "object"
 },
 "KeyPressAction": {
  "properties": {
   "keys": {
    "items": {
     "type": "string"
    },
    "type": "array"
   },
   "type": {
    "enum": [
     "keypress"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "keys"
  ],
  "type": "object"
 },
 "LocalEnvironmentParam": {
  "properties": {
   "skills": {
    "items": {
     "$ref": "#/definitions/LocalSkillParam"
    },
    "maxItems": 200,
    "type": "array"
   },
   "type": {
    "enum": [
     "local"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "LocalShellExecAction": {
  "properties": {
   "command": {
    "items": {
     "type": "string"
    },
    "type": "array"
   },
   "env": {
    "additionalProperties": {
     "type": "string"
    },
    "type": "object"
   },
   "timeout_ms": {
    "anyOf": [
     {
      "type": "integer"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "exec"
    ],
    "type": "string"
   },
   "user": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "working_directory": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   }
  },
  "required": [
   "type",
   "command",
   "env"
  ],
  "type": "object"
 },
 "LocalShellToolCall": {
  "properties": {
   "action": {
    "$ref": "#/definitions/LocalShellExecAction"
   },
   "call_id": {
    "type": "string"
   },
   "id": {
    "type": "string"
   },
   "status": {
    "enum": [
     "in_progress",
     "completed",
     "incomplete"
    ],
    "type": "string"
   },
   "type": {
    "enum": [
     "local_shell_call"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "id",
   "call_id",
   "action",
   "status"
  ],
  "type": "object"
 },
 "LocalShellToolCallOutput": {
  "properties": {
   "id": {
    "type": "string"
   },
   "output": {
    "type": "string"
   },
   "status": {
    "anyOf": [
     {
      "enum": [
       "in_progress",
       "completed",
       "incomplete"
      ],
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "local_shell_call_output"
    ],
    "type": "string"
   }
  },
  "required": [
   "id",
   "type",
   "call_id",
   "output"
  ],
  "type": "object"
 },
 "LocalShellToolParam": {
  "properties": {
   "type": {
    "enum": [
     "local_shell"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "LocalSkillParam": {
  "properties": {
   "description": {
    "type": "string"
   },
   "name": {
    "type": "string"
   },
   "path": {
    "type": "string"
   }
  },
  "required": [
   "name",
   "description",
   "path"
  ],
  "type": "object"
 },
 "LogProb": {
  "properties": {
   "bytes": {
    "items": {
     "type": "integer"
    },
    "type": "array"
   },
   "logprob": {
    "type": "number"
   },
   "token": {
    "type": "string"
   },
   "top_logprobs": {
    "items": {
     "$ref": "#/definitions/TopLogProb"
    },
    "type": "array"
   }
  },
  "required": [
   "token",
   "logprob",
   "bytes",
   "top_logprobs"
  ],
  "type": "object"
 },
 "MCPApprovalRequest": {
  "properties": {
   "arguments": {
    "type": "string"
   },
   "id": {
    "type": "string"
   },
   "name": {
    "type": "string"
   },
   "server_label": {
    "type": "string"
   },
   "type": {
    "enum": [
     "mcp_approval_request"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "id",
   "server_label",
   "name",
   "arguments"
  ],
  "type": "object"
 },
 "MCPApprovalResponse": {
  "properties": {
   "approval_request_id": {
    "type": "string"
   },
   "approve": {
    "type": "boolean"
   },
   "id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "reason": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "mcp_approval_response"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "request_id",
   "approve",
   "approval_request_id"
  ],
  "type": "object"
 },
 "MCPListTools": {
  "properties": {
   "error": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "id": {
    "type": "string"
   },
   "server_label": {
    "type": "string"
   },
   "tools": {
    "items": {
     "$ref": "#/definitions/MCPListToolsTool"
    },
    "type": "array"
   },
   "type": {
    "enum": [
     "mcp_list_tools"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "id",
   "server_label",
   "tools"
  ],
  "type": "object"
 },
 "MCPListToolsTool": {
  "properties": {
   "annotations": {
    "anyOf": [
     {
      "type": "object"
     },
     {
      "type": "null"
     }
    ]
   },
   "description": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "input_schema": {
    "type": "object"
   },
   "name": {
    "type": "string"
   }
  },
  "required": [
   "name",
   "input_schema"
  ],
  "type": "object"
 },
 "MCPProtocolError": {
  "properties": {
   "code": {
    "type": "integer"
   },
   "message": {
    "type": "string"
   },
   "type": {
    "enum": [
     "mcp_protocol_error"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "code",
   "message"
  ],
  "type": "object"
 },
 "MCPTool": {
  "properties": {
   "allowed_callers": {
    "anyOf": [
     {
      "items": {
       "$ref": "#/definitions/CallableToolAllowedCaller"
      },
      "minItems": 1,
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "allowed_tools": {
    "anyOf": [
     {
      "oneOf": [
       {
        "items": {
         "type": "string"
        },
        "type": "array"
       },
       {
        "$ref": "#/definitions/MCPToolFilter"
       }
      ]
     },
     {
      "type": "null"
     }
    ]
   },
   "authorization": {
    "type": "string"
   },
   "connector_id": {
    "enum": [
     "connector_dropbox",
     "connector_gmail",
     "connector_googlecalendar",
     "connector_googledrive",
     "connector_microsoftteams",
     "connector_outlookcalendar",
     "connector_outlookemail",
     "connector_sharepoint"
    ],
    "type": "string"
   },
   "defer_loading": {
    "type": "boolean"
   },
   "headers": {
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
   "require_approval": {
    "anyOf": [
     {
      "oneOf": [
       {
        "additionalProperties": false,
        "properties": {
         "always": {
          "$ref": "#/definitions/MCPToolFilter"
         },
         "never": {
          "$ref": "#/definitions/MCPToolFilter"
         }
        },
        "type": "object"
       },
       {
        "enum": [
         "always",
         "never"
        ],
        "type": "string"
       }
      ]
     },
     {
      "type": "null"
     }
    ]
   },
   "server_description": {
    "type": "string"
   },
   "server_label": {
    "type": "string"
   },
   "server_url": {
    "type": "string"
   },
   "tunnel_id": {
    "type": "string"
   },
   "type": {
    "enum": [
     "mcp"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "server_label"
  ],
  "type": "object"
 },
 "MCPToolCall": {
  "properties": {
   "approval_request_id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "arguments": {
    "type": "string"
   },
   "error": {
    "anyOf": [
     {
      "$ref": "#/definitions/MCPToolCallError"
     },
     {
      "type": "null"
     }
    ]
   },
   "id": {
    "type": "string"
   },
   "name": {
    "type": "string"
   },
   "output": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "server_label": {
    "type": "string"
   },
   "status": {
    "$ref": "#/definitions/MCPToolCallStatus"
   },
   "type": {
    "enum": [
     "mcp_call"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "id",
   "server_label",
   "name",
   "arguments"
  ],
  "type": "object"
 },
 "MCPToolCallError": {
  "oneOf": [
   {
    "$ref": "#/definitions/MCPProtocolError"
   },
   {
    "$ref": "#/definitions/MCPToolExecutionError"
   },
   {
    "$ref": "#/definitions/HTTPError"
   }
  ]
 },
 "MCPToolCallStatus": {
  "enum": [
   "in_progress",
   "completed",
   "incomplete",
   "calling",
   "failed"
  ],
  "type": "string"
 },
 "MCPToolExecutionError": {
  "properties": {
   "content": {},
   "type": {
    "enum": [
     "mcp_tool_execution_error"
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
 "MCPToolFilter": {
  "additionalProperties": false,
  "properties": {
   "read_only": {
    "type": "boolean"
   },
   "tool_names": {
    "items": {
     "type": "string"
    },
    "type": "array"
   }
  },
  "required": [],
  "type": "object"
 },
 "MessagePhase": {
  "enum": [
   "commentary",
   "final_answer"
  ],
  "type": "string"
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
 "ModelIdsResponses": {
  "anyOf": [
   {
    "$ref": "#/definitions/ModelIdsShared"
   },
   {
    "enum": [
     "o1-pro",
     "o1-pro-2025-03-19",
     "o3-pro",
     "o3-pro-2025-06-10",
     "o3-deep-research",
     "o3-deep-research-2025-06-26",
     "o4-mini-deep-research",
     "o4-mini-deep-research-2025-06-26",
     "computer-use-preview",
     "computer-use-preview-2025-03-11",
     "gpt-5.5-pro",
     "gpt-5.5-pro-2026-04-23",
     "gpt-5-codex",
     "gpt-5-pro",
     "gpt-5-pro-2025-10-06",
     "gpt-5.1-codex-max",
     "gpt-daybreak-blue-latest",
     "gpt-daybreak-red-latest",
     "gpt-5.6-cyber"
    ],
    "type": "string"
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
 "MoveParam": {
  "properties": {
   "keys": {
    "anyOf": [
     {
      "items": {
       "type": "string"
      },
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "move"
    ],
    "type": "string"
   },
   "x": {
    "type": "integer"
   },
   "y": {
    "type": "integer"
   }
  },
  "required": [
   "type",
   "x",
   "y"
  ],
  "type": "object"
 },
 "NamespaceToolParam": {
  "properties": {
   "description": {
    "type": "string"
   },
   "name": {
    "type": "string"
   },
   "tools": {
    "items": {
     "oneOf": [
      {
       "$ref": "#/definitions/FunctionToolParam"
      },
      {
       "$ref": "#/definitions/CustomToolParam"
      }
     ]
    },
    "minItems": 1,
    "type": "array"
   },
   "type": {
    "enum": [
     "namespace"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "name",
   "description",
   "tools"
  ],
  "type": "object"
 },
 "OutputMessage": {
  "properties": {
   "content": {
    "items": {
     "$ref": "#/definitions/OutputMessageContent"
    },
    "type": "array"
   },
   "id": {
    "type": "string"
   },
   "phase": {
    "anyOf": [
     {
      "$ref": "#/definitions/MessagePhase"
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
   "status": {
    "enum": [
     "in_progress",
     "completed",
     "incomplete"
    ],
    "type": "string"
   },
   "type": {
    "enum": [
     "message"
    ],
    "type": "string"
   }
  },
  "required": [
   "id",
   "type",
   "role",
   "content",
   "status"
  ],
  "type": "object"
 },
 "OutputMessageContent": {
  "oneOf": [
   {
    "$ref": "#/definitions/OutputTextContent"
   },
   {
    "$ref": "#/definitions/RefusalContent"
   }
  ]
 },
 "OutputTextContent": {
  "properties": {
   "annotations": {
    "items": {
     "$ref": "#/definitions/Annotation"
    },
    "type": "array"
   },
   "logprobs": {
    "items": {
     "$ref": "#/definitions/LogProb"
    },
    "type": "array"
   },
   "text": {
    "type": "string"
   },
   "type": {
    "enum": [
     "output_text"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "text",
   "annotations",
   "logprobs"
  ],
  "type": "object"
 },
 "ProgramItemParam": {
  "properties": {
   "call_id": {
    "maxLength": 64,
    "type": "string"
   },
   "code": {
    "maxLength": 10485760,
    "type": "string"
   },
   "fingerprint": {
    "maxLength": 10485760,
    "type": "string"
   },
   "id": {
    "type": "string"
   },
   "type": {
    "enum": [
     "program"
    ],
    "type": "string"
   }
  },
  "required": [
   "id",
   "type",
   "call_id",
   "code",
   "fingerprint"
  ],
  "type": "object"
 },
 "ProgramOutputItemParam": {
  "properties": {
   "call_id": {
    "maxLength": 64,
    "type": "string"
   },
   "id": {
    "type": "string"
   },
   "result": {
    "maxLength": 10485760,
    "type": "string"
   },
   "status": {
    "$ref": "#/definitions/ProgramOutputItemStatus"
   },
   "type": {
    "enum": [
     "program_output"
    ],
    "type": "string"
   }
  },
  "required": [
   "id",
   "type",
   "call_id",
   "result",
   "status"
  ],
  "type": "object"
 },
 "ProgramOutputItemStatus": {
  "enum": [
   "completed",
   "incomplete"
  ],
  "type": "string"
 },
 "ProgramToolCallCaller": {
  "properties": {
   "caller_id": {
    "type": "string"
   },
   "type": {
    "enum": [
     "program"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "caller_id"
  ],
  "type": "object"
 },
 "ProgramToolCallCallerParam": {
  "properties": {
   "caller_id": {
    "maxLength": 64,
    "type": "string"
   },
   "type": {
    "enum": [
     "program"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "caller_id"
  ],
  "type": "object"
 },
 "ProgrammaticToolCallingParam": {
  "properties": {
   "type": {
    "enum": [
     "programmatic_tool_calling"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "Prompt": {
  "anyOf": [
   {
    "properties": {
     "id": {
      "type": "string"
     },
     "variables": {
      "$ref": "#/definitions/ResponsePromptVariables"
     },
     "version": {
      "anyOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
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
 "PromptCacheBreakpointConfig": {
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
 "RankerVersionType": {
  "enum": [
   "auto",
   "default-2024-11-15"
  ],
  "type": "string"
 },
 "RankingOptions": {
  "properties": {
   "hybrid_search": {
    "$ref": "#/definitions/HybridSearchOptions"
   },
   "ranker": {
    "$ref": "#/definitions/RankerVersionType"
   },
   "score_threshold": {
    "type": "number"
   }
  },
  "required": [],
  "type": "object"
 },
 "Reasoning": {
  "properties": {
   "context": {
    "anyOf": [
     {
      "enum": [
       "auto",
       "current_turn",
       "all_turns"
      ],
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "effort": {
    "$ref": "#/definitions/ReasoningEffort"
   },
   "generate_summary": {
    "anyOf": [
     {
      "enum": [
       "auto",
       "concise",
       "detailed"
      ],
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "mode": {
    "$ref": "#/definitions/ReasoningModeEnum"
   },
   "summary": {
    "anyOf": [
     {
      "enum": [
       "auto",
       "concise",
       "detailed"
      ],
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   }
  },
  "type": "object"
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
 "ReasoningItem": {
  "properties": {
   "content": {
    "items": {
     "$ref": "#/definitions/ReasoningTextContent"
    },
    "type": "array"
   },
   "encrypted_content": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "id": {
    "type": "string"
   },
   "status": {
    "enum": [
     "in_progress",
     "completed",
     "incomplete"
    ],
    "type": "string"
   },
   "summary": {
    "items": {
     "$ref": "#/definitions/SummaryTextContent"
    },
    "type": "array"
   },
   "type": {
    "enum": [
     "reasoning"
    ],
    "type": "string"
   }
  },
  "required": [
   "id",
   "summary",
   "type"
  ],
  "type": "object"
 },
 "ReasoningModeEnum": {
  "anyOf": [
   {
    "type": "string"
   },
   {
    "enum": [
     "standard",
     "pro"
    ],
    "type": "string"
   }
  ]
 },
 "ReasoningTextContent": {
  "properties": {
   "text": {
    "type": "string"
   },
   "type": {
    "enum": [
     "reasoning_text"
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
 "RefusalContent": {
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
 "ResponsePromptVariables": {
  "anyOf": [
   {
    "additionalProperties": {
     "oneOf": [
      {
       "type": "string"
      },
      {
       "$ref": "#/definitions/InputTextContent"
      },
      {
       "$ref": "#/definitions/InputImageContent"
      },
      {
       "$ref": "#/definitions/InputFileContent"
      }
     ]
    },
    "type": "object"
   },
   {
    "type": "null"
   }
  ]
 },
 "ResponseProperties": {
  "properties": {
   "background": {
    "anyOf": [
     {
      "type": "boolean"
     },
     {
      "type": "null"
     }
    ]
   },
   "max_tool_calls": {
    "anyOf": [
     {
      "type": "integer"
     },
     {
      "type": "null"
     }
    ]
   },
   "model": {
    "$ref": "#/definitions/ModelIdsResponses"
   },
   "previous_response_id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "prompt": {
    "$ref": "#/definitions/Prompt"
   },
   "text": {
    "$ref": "#/definitions/ResponseTextParam"
   },
   "tool_choice": {
    "$ref": "#/definitions/ToolChoiceParam"
   },
   "tools": {
    "$ref": "#/definitions/ToolsArray"
   }
  },
  "type": "object"
 },
 "ResponseStreamOptions": {
  "anyOf": [
   {
    "properties": {
     "include_obfuscation": {
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
 "ResponseTextParam": {
  "properties": {
   "format": {
    "$ref": "#/definitions/TextResponseFormatConfiguration"
   },
   "verbosity": {
    "$ref": "#/definitions/Verbosity"
   }
  },
  "type": "object"
 },
 "ScreenshotParam": {
  "properties": {
   "type": {
    "enum": [
     "screenshot"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ScrollParam": {
  "properties": {
   "keys": {
    "anyOf": [
     {
      "items": {
       "type": "string"
      },
      "type": "array"
     },
     {
      "type": "null"
     }
    ]
   },
   "scroll_x": {
    "type": "integer"
   },
   "scroll_y": {
    "type": "integer"
   },
   "type": {
    "enum": [
     "scroll"
    ],
    "type": "string"
   },
   "x": {
    "type": "integer"
   },
   "y": {
    "type": "integer"
   }
  },
  "required": [
   "type",
   "x",
   "y",
   "scroll_x",
   "scroll_y"
  ],
  "type": "object"
 },
 "SearchContentType": {
  "enum": [
   "text",
   "image"
  ],
  "type": "string"
 },
 "SearchContextSize": {
  "enum": [
   "low",
   "medium",
   "high"
  ],
  "type": "string"
 },
 "ServiceTierResponses": {
  "anyOf": [
   {
    "enum": [
     "auto",
     "default",
     "flex",
     "scale",
     "priority",
     "fast",
     "ultrafast"
    ],
    "type": "string"
   },
   {
    "type": "null"
   }
  ]
 },
 "SkillReferenceParam": {
  "properties": {
   "skill_id": {
    "maxLength": 64,
    "type": "string"
   },
   "type": {
    "enum": [
     "skill_reference"
    ],
    "type": "string"
   },
   "version": {
    "type": "string"
   }
  },
  "required": [
   "type",
   "skill_id"
  ],
  "type": "object"
 },
 "SpecificApplyPatchParam": {
  "properties": {
   "type": {
    "enum": [
     "apply_patch"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "SpecificFunctionShellParam": {
  "properties": {
   "type": {
    "enum": [
     "shell"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "SpecificProgrammaticToolCallingParam": {
  "properties": {
   "type": {
    "enum": [
     "programmatic_tool_calling"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "SummaryTextContent": {
  "properties": {
   "text": {
    "type": "string"
   },
   "type": {
    "enum": [
     "summary_text"
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
 "TextResponseFormatConfiguration": {
  "oneOf": [
   {
    "$ref": "#/definitions/ResponseFormatText"
   },
   {
    "$ref": "#/definitions/TextResponseFormatJsonSchema"
   },
   {
    "$ref": "#/definitions/ResponseFormatJsonObject"
   }
  ]
 },
 "TextResponseFormatJsonSchema": {
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
   "schema",
   "name"
  ],
  "type": "object"
 },
 "Tool": {
  "oneOf": [
   {
    "$ref": "#/definitions/FunctionTool"
   },
   {
    "$ref": "#/definitions/FileSearchTool"
   },
   {
    "$ref": "#/definitions/ComputerTool"
   },
   {
    "$ref": "#/definitions/ComputerUsePreviewTool"
   },
   {
    "$ref": "#/definitions/WebSearchTool"
   },
   {
    "$ref": "#/definitions/MCPTool"
   },
   {
    "$ref": "#/definitions/CodeInterpreterTool"
   },
   {
    "$ref": "#/definitions/ProgrammaticToolCallingParam"
   },
   {
    "$ref": "#/definitions/ImageGenTool"
   },
   {
    "$ref": "#/definitions/LocalShellToolParam"
   },
   {
    "$ref": "#/definitions/FunctionShellToolParam"
   },
   {
    "$ref": "#/definitions/CustomToolParam"
   },
   {
    "$ref": "#/definitions/NamespaceToolParam"
   },
   {
    "$ref": "#/definitions/ToolSearchToolParam"
   },
   {
    "$ref": "#/definitions/WebSearchPreviewTool"
   },
   {
    "$ref": "#/definitions/ApplyPatchToolParam"
   }
  ]
 },
 "ToolCallCaller": {
  "oneOf": [
   {
    "$ref": "#/definitions/DirectToolCallCaller"
   },
   {
    "$ref": "#/definitions/ProgramToolCallCaller"
   }
  ]
 },
 "ToolCallCallerParam": {
  "oneOf": [
   {
    "$ref": "#/definitions/DirectToolCallCallerParam"
   },
   {
    "$ref": "#/definitions/ProgramToolCallCallerParam"
   }
  ]
 },
 "ToolChoiceAllowed": {
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
   "mode",
   "tools"
  ],
  "type": "object"
 },
 "ToolChoiceCustom": {
  "properties": {
   "name": {
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
   "type",
   "name"
  ],
  "type": "object"
 },
 "ToolChoiceFunction": {
  "properties": {
   "name": {
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
   "type",
   "name"
  ],
  "type": "object"
 },
 "ToolChoiceMCP": {
  "properties": {
   "name": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "server_label": {
    "type": "string"
   },
   "type": {
    "enum": [
     "mcp"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "server_label"
  ],
  "type": "object"
 },
 "ToolChoiceOptions": {
  "enum": [
   "none",
   "auto",
   "required"
  ],
  "type": "string"
 },
 "ToolChoiceParam": {
  "oneOf": [
   {
    "$ref": "#/definitions/ToolChoiceOptions"
   },
   {
    "$ref": "#/definitions/ToolChoiceAllowed"
   },
   {
    "$ref": "#/definitions/ToolChoiceTypes"
   },
   {
    "$ref": "#/definitions/ToolChoiceFunction"
   },
   {
    "$ref": "#/definitions/ToolChoiceMCP"
   },
   {
    "$ref": "#/definitions/ToolChoiceCustom"
   },
   {
    "$ref": "#/definitions/SpecificProgrammaticToolCallingParam"
   },
   {
    "$ref": "#/definitions/SpecificApplyPatchParam"
   },
   {
    "$ref": "#/definitions/SpecificFunctionShellParam"
   }
  ]
 },
 "ToolChoiceTypes": {
  "properties": {
   "type": {
    "enum": [
     "file_search",
     "web_search_preview",
     "computer",
     "computer_use_preview",
     "computer_use",
     "web_search_preview_2025_03_11",
     "image_generation",
     "code_interpreter"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ToolSearchCallItemParam": {
  "properties": {
   "arguments": {
    "$ref": "#/definitions/EmptyModelParam"
   },
   "call_id": {
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
   "execution": {
    "$ref": "#/definitions/ToolSearchExecutionType"
   },
   "id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "status": {
    "anyOf": [
     {
      "$ref": "#/definitions/FunctionCallItemStatus"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "tool_search_call"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "arguments"
  ],
  "type": "object"
 },
 "ToolSearchExecutionType": {
  "enum": [
   "server",
   "client"
  ],
  "type": "string"
 },
 "ToolSearchOutputItemParam": {
  "properties": {
   "call_id": {
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
   "execution": {
    "$ref": "#/definitions/ToolSearchExecutionType"
   },
   "id": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "status": {
    "anyOf": [
     {
      "$ref": "#/definitions/FunctionCallItemStatus"
     },
     {
      "type": "null"
     }
    ]
   },
   "tools": {
    "items": {
     "$ref": "#/definitions/Tool"
    },
    "type": "array"
   },
   "type": {
    "enum": [
     "tool_search_output"
    ],
    "type": "string"
   }
  },
  "required": [
   "type",
   "tools"
  ],
  "type": "object"
 },
 "ToolSearchToolParam": {
  "properties": {
   "description": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   },
   "execution": {
    "$ref": "#/definitions/ToolSearchExecutionType"
   },
   "parameters": {
    "anyOf": [
     {
      "$ref": "#/definitions/EmptyModelParam"
     },
     {
      "type": "null"
     }
    ]
   },
   "type": {
    "enum": [
     "tool_search"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "ToolsArray": {
  "items": {
   "$ref": "#/definitions/Tool"
  },
  "type": "array"
 },
 "TopLogProb": {
  "properties": {
   "bytes": {
    "items": {
     "type": "integer"
    },
    "type": "array"
   },
   "logprob": {
    "type": "number"
   },
   "token": {
    "type": "string"
   }
  },
  "required": [
   "token",
   "logprob",
   "bytes"
  ],
  "type": "object"
 },
 "TypeParam": {
  "properties": {
   "text": {
    "type": "string"
   },
   "type": {
    "enum": [
     "type"
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
 "UrlCitationBody": {
  "properties": {
   "end_index": {
    "type": "integer"
   },
   "start_index": {
    "type": "integer"
   },
   "title": {
    "type": "string"
   },
   "type": {
    "enum": [
     "url_citation"
    ],
    "type": "string"
   },
   "url": {
    "type": "string"
   }
  },
  "required": [
   "type",
   "url",
   "start_index",
   "end_index",
   "title"
  ],
  "type": "object"
 },
 "VectorStoreFileAttributes": {
  "anyOf": [
   {
    "additionalProperties": {
     "oneOf": [
      {
       "maxLength": 512,
       "type": "string"
      },
      {
       "type": "number"
      },
      {
       "type": "boolean"
      }
     ]
    },
    "type": "object"
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
 "WaitParam": {
  "properties": {
   "type": {
    "enum": [
     "wait"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "WebSearchActionFind": {
  "properties": {
   "pattern": {
    "type": "string"
   },
   "type": {
    "enum": [
     "find_in_page"
    ],
    "type": "string"
   },
   "url": {
    "type": "string"
   }
  },
  "required": [
   "type",
   "url",
   "pattern"
  ],
  "type": "object"
 },
 "WebSearchActionOpenPage": {
  "properties": {
   "type": {
    "enum": [
     "open_page"
    ],
    "type": "string"
   },
   "url": {
    "anyOf": [
     {
      "type": "string"
     },
     {
      "type": "null"
     }
    ]
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "WebSearchActionSearch": {
  "properties": {
   "queries": {
    "items": {
     "type": "string"
    },
    "type": "array"
   },
   "query": {
    "type": "string"
   },
   "sources": {
    "items": {
     "properties": {
      "type": {
       "enum": [
        "url"
       ],
       "type": "string"
      },
      "url": {
       "type": "string"
      }
     },
     "required": [
      "type",
      "url"
     ],
     "type": "object"
    },
    "type": "array"
   },
   "type": {
    "enum": [
     "search"
    ],
    "type": "string"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "WebSearchApproximateLocation": {
  "anyOf": [
   {
    "properties": {
     "city": {
      "anyOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     },
     "country": {
      "anyOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     },
     "region": {
      "anyOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     },
     "timezone": {
      "anyOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     },
     "type": {
      "enum": [
       "approximate"
      ],
      "type": "string"
     }
    },
    "type": "object"
   },
   {
    "type": "null"
   }
  ]
 },
 "WebSearchPreviewTool": {
  "properties": {
   "search_content_types": {
    "items": {
     "$ref": "#/definitions/SearchContentType"
    },
    "type": "array"
   },
   "search_context_size": {
    "$ref": "#/definitions/SearchContextSize"
   },
   "type": {
    "enum": [
     "web_search_preview",
     "web_search_preview_2025_03_11"
    ],
    "type": "string"
   },
   "user_location": {
    "anyOf": [
     {
      "$ref": "#/definitions/ApproximateLocation"
     },
     {
      "type": "null"
     }
    ]
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "WebSearchTool": {
  "properties": {
   "external_web_access": {
    "type": "boolean"
   },
   "filters": {
    "anyOf": [
     {
      "properties": {
       "allowed_domains": {
        "anyOf": [
         {
          "items": {
           "type": "string"
          },
          "type": "array"
         },
         {
          "type": "null"
         }
        ]
       }
      },
      "type": "object"
     },
     {
      "type": "null"
     }
    ]
   },
   "search_context_size": {
    "enum": [
     "low",
     "medium",
     "high"
    ],
    "type": "string"
   },
   "type": {
    "enum": [
     "web_search",
     "web_search_2025_08_26"
    ],
    "type": "string"
   },
   "user_location": {
    "$ref": "#/definitions/WebSearchApproximateLocation"
   }
  },
  "required": [
   "type"
  ],
  "type": "object"
 },
 "WebSearchToolCall": {
  "properties": {
   "action": {
    "oneOf": [
     {
      "$ref": "#/definitions/WebSearchActionSearch"
     },
     {
      "$ref": "#/definitions/WebSearchActionOpenPage"
     },
     {
      "$ref": "#/definitions/WebSearchActionFind"
     }
    ],
    "type": "object"
   },
   "id": {
    "type": "string"
   },
   "status": {
    "enum": [
     "in_progress",
     "searching",
     "completed",
     "failed"
    ],
    "type": "string"
   },
   "type": {
    "enum": [
     "web_search_call"
    ],
    "type": "string"
   }
  },
  "required": [
   "id",
   "type",
   "status",
   "action"
  ],
  "type": "object"
 }
}''')
