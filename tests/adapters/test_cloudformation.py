"""SageMaker endpoints in CloudFormation templates (adapters/cloudformation.py): an AWS::SageMaker::Model's container
joined to the EndpointConfig variants (or InferenceComponents) that run it, values through `!Ref` to a Parameter's
Default (said so), `!Sub`/`Fn::Join` images whose region is not known, and every finding at its value."""
from __future__ import annotations

import json

from tests.adapters.kit import adapt, at
from tests.helpers import run

LMI = """\
AWSTemplateFormatVersion: '2010-09-09'
Parameters:
  ModelId:
    Type: String
    Default: Qwen/Qwen2.5-7B-Instruct
  Instance:
    Type: String
    Default: ml.g5.12xlarge
Resources:
  LlmModel:
    Type: AWS::SageMaker::Model
    Properties:
      ExecutionRoleArn: !GetAtt Role.Arn
      PrimaryContainer:
        Image: !Sub '763104351884.dkr.ecr.${AWS::Region}.amazonaws.com/djl-inference:0.33.0-lmi15.0.0-cu128'
        Environment:
          HF_MODEL_ID: !Ref ModelId
          OPTION_ROLLING_BATCH: vllm
          OPTION_MAX_MODEL_LEN: '32768'
  LlmConfig:
    Type: AWS::SageMaker::EndpointConfig
    Properties:
      ProductionVariants:
        - VariantName: primary
          ModelName: !GetAtt LlmModel.ModelName
          InitialInstanceCount: 2
          InstanceType: !Ref Instance
"""


def test_yaml_template_is_the_model_on_its_variants_instances():
    found = adapt(LMI, "stack.yaml")
    (dep,) = found.deployments  # was: no deployment at all
    (role,) = dep.roles
    assert str(dep.name.value) == "LlmConfig/primary"
    assert (dep.engine.name.value, dep.engine.version.value) == ("vllm", "0.8.4")  # lmi15's vLLM
    assert dep.model.id.value == "Qwen/Qwen2.5-7B-Instruct"
    assert at(LMI, dep.model.id.source) == "Qwen/Qwen2.5-7B-Instruct" and dep.model.id.source.line == 5  # the Default
    assert role.context_length.value == 32768 and at(LMI, role.context_length.source) == "'32768'"
    assert (role.accelerators.type.value, role.accelerators.count.value) == ("A10G", 4)
    assert at(LMI, role.accelerators.count.source) == "ml.g5.12xlarge" and role.accelerators.count.source.line == 8
    assert role.replicas.value == 2 and role.parallelism.tensor.value == 4  # LMI's `max`: the instance's 4 GPUs
    (note,) = [d for d in found.diagnostics if "Defaults" in d.message]
    assert "Instance=ml.g5.12xlarge" in note.message and "ModelId=Qwen/Qwen2.5-7B-Instruct" in note.message
    assert "--parameter-overrides" in note.message and note.source.line == 8


def _json_template() -> str:
    image = {"Fn::Join": ["", ["763104351884.dkr.ecr.", {"Ref": "AWS::Region"}, ".", {"Ref": "AWS::URLSuffix"},
                               "/huggingface-pytorch-tgi-inference:2.4.0-tgi2.3.1-gpu-py311-cu124-ubuntu22.04"]]}
    return json.dumps({"Resources": {
        "Tgi": {"Type": "AWS::SageMaker::Model", "Properties": {"Containers": [{
            "Image": image, "Environment": {"HF_MODEL_ID": "meta-llama/Llama-3.1-8B-Instruct", "SM_NUM_GPUS": "1",
                                            "MAX_INPUT_TOKENS": {"Fn::Sub": "${Len}"}, "MAX_TOTAL_TOKENS": "9000"}}]}},
        "Config": {"Type": "AWS::SageMaker::EndpointConfig", "Properties": {"ProductionVariants": [
            {"VariantName": "a", "ModelName": {"Ref": "Tgi"}, "InstanceType": "ml.g6e.xlarge",
             "InitialInstanceCount": 1},
            {"VariantName": "b", "ModelName": {"Fn::GetAtt": ["Tgi", "ModelName"]}, "InstanceType": "ml.p4d.24xlarge",
             "InitialInstanceCount": "3"}]}}},
        "Parameters": {"Len": {"Type": "Number", "Default": 8000}}}, indent=1)


def test_json_long_forms_and_two_variants_are_two_deployments():
    text = _json_template()
    found = adapt(text, "cdk.out/Stack.template.json")
    a, b = found.deployments
    assert (str(a.name.value), str(b.name.value)) == ("Config/a", "Config/b")
    assert a.engine.name.value == "tgi" and a.engine.version.value == "2.3.1"
    assert a.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"
    (ra,), (rb,) = a.roles, b.roles
    assert (ra.accelerators.type.value, ra.accelerators.count.value) == ("L40S", 1)
    assert (rb.accelerators.type.value, rb.accelerators.count.value, rb.replicas.value) == ("A100-40GB", 8, 3)
    assert ra.arg("max_input_tokens").value == 8000  # `Fn::Sub ${Len}`: the Default
    assert ra.arg("max_input_tokens").source.line == text.split("\n").index('   "Default": 8000') + 1
    assert any("Len=8000" in d.message for d in found.diagnostics)


def test_model_without_endpoint_config_has_no_device_and_says_why():
    text = LMI.split("  LlmConfig:")[0]
    found = adapt(text)
    (dep,) = found.deployments
    assert dep.roles[0].accelerators.type is None
    (note,) = [d for d in found.diagnostics if "instance type" in d.message]
    assert "no EndpointConfig or InferenceComponent" in note.message and note.source.line == 10


def test_parameter_without_default_is_unknown_at_its_ref():
    text = LMI.replace("    Default: ml.g5.12xlarge\n", "")
    found = adapt(text)
    (dep,) = found.deployments
    assert dep.roles[0].accelerators.type is None
    (note,) = [d for d in found.diagnostics if "has no Default" in d.message]
    assert "Parameter Instance has no Default" in note.message and at(text, note.source) == "!Ref Instance"


def test_unknown_env_value_is_ctx008_at_the_value():
    text = LMI.replace("OPTION_MAX_MODEL_LEN: '32768'", "OPTION_MAX_MODEL_LEN: !ImportValue Len")
    found = adapt(text)
    (dep,) = found.deployments
    assert dep.roles[0].context_length is None  # neither the value nor LMI's default stands for it
    (note,) = [d for d in found.diagnostics if "OPTION_MAX_MODEL_LEN" in d.message]
    assert at(text, note.source) == "!ImportValue Len"


def test_inference_component_runs_its_copies_on_its_devices():
    text = LMI + """\
  Endpoint:
    Type: AWS::SageMaker::Endpoint
    Properties:
      EndpointConfigName: !GetAtt LlmConfig.EndpointConfigName
  Component:
    Type: AWS::SageMaker::InferenceComponent
    Properties:
      EndpointName: !GetAtt Endpoint.EndpointName
      VariantName: primary
      Specification:
        Container:
          Image: 763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.33.0-lmi15.0.0-cu128
          Environment: {HF_MODEL_ID: meta-llama/Llama-3.1-8B-Instruct, OPTION_ROLLING_BATCH: vllm}
        ComputeResourceRequirements: {NumberOfAcceleratorDevicesRequired: 2, MinMemoryRequiredInMb: 1024}
      RuntimeConfig: {CopyCount: 3}
"""
    found = adapt(text)
    config, component = found.deployments
    (role,) = component.roles
    assert str(component.name.value) == "Component" and component.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"
    assert (role.accelerators.type.value, role.accelerators.count.value, role.replicas.value) == ("A10G", 2, 3)
    assert role.parallelism.tensor.value == 2 and at(text, role.accelerators.count.source) == "2"


def test_non_llm_model_is_silent_and_unknown_llm_image_is_said():
    sklearn = """\
Parameters:
  ImageURI: {Type: String, Default: 683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-scikit-learn:0.23-1-cpu-py3}
Resources:
  M:
    Type: AWS::SageMaker::Model
    Properties:
      Containers:
        - Image: !Ref ImageURI
          ModelDataUrl: s3://bucket/model.tar.gz
          Environment: {SAGEMAKER_PROGRAM: inference.py}
"""
    found = adapt(sklearn)
    assert not found.deployments and not found.diagnostics
    hidden = sklearn.replace("Default: 683313688378", "Description: x, Other: 1").replace(
        "SAGEMAKER_PROGRAM: inference.py", "HF_MODEL_ID: org/model")
    (note,) = adapt(hidden).diagnostics
    assert "the image is not known" in note.message and "ImageURI has no Default" in note.message


def test_audit_reads_a_template(tmp_path):
    (tmp_path / "stack.yaml").write_text(LMI)
    r = run(["audit", str(tmp_path / "stack.yaml")])
    assert "LlmConfig/primary" in r.out and "vllm 0.8.4" in r.out and "derived" in r.out


def test_find_in_map_with_literal_keys_and_sub_list_form():
    text = LMI.replace("InstanceType: !Ref Instance", "InstanceType: !FindInMap [Sizes, prod, instance]").replace(
        "HF_MODEL_ID: !Ref ModelId", "HF_MODEL_ID: !Sub ['${Org}/Qwen2.5-7B-${Kind}', {Org: Qwen, Kind: !Ref Kind}]").replace(
        "Parameters:\n", "Parameters:\n  Kind: {Type: String, Default: Instruct}\n") + """\
Mappings:
  Sizes:
    prod: {instance: ml.p5.48xlarge}
"""
    found = adapt(text)
    (dep,) = found.deployments
    (role,) = dep.roles
    assert (role.accelerators.type.value, role.accelerators.count.value) == ("H100", 8)
    assert at(text, role.accelerators.count.source) == "ml.p5.48xlarge"
    assert dep.model.id.value == "Qwen/Qwen2.5-7B-Instruct"  # the list form's variables, one through a Default
    assert any("Kind=Instruct" in d.message for d in found.diagnostics)


def test_ssm_parameter_type_default_is_a_parameter_name_not_the_value():
    # `AWS::SSM::Parameter::Value<String>`: the Default names the SSM parameter; its value is read at deploy time
    text = LMI.replace("  ModelId:\n    Type: String", "  ModelId:\n    Type: AWS::SSM::Parameter::Value<String>").replace(
        "Default: Qwen/Qwen2.5-7B-Instruct", "Default: /llm/model-id")
    found = adapt(text)
    (dep,) = found.deployments
    assert dep.model.id is None or dep.model.id.value is None  # was: the model `/llm/model-id`, a local path
    (note,) = [d for d in found.diagnostics if "HF_MODEL_ID" in d.message]
    assert at(text, note.source) == "!Ref ModelId"
    assert not any("ModelId=" in d.message for d in found.diagnostics)  # no Default was read


def test_inference_component_finds_its_endpoint_and_config_by_their_literal_names():
    # EndpointName / EndpointConfigName written as the names the template gives them, as a variant's ModelName may be
    text = LMI.replace("        - VariantName: primary\n          ModelName: !GetAtt LlmModel.ModelName\n",
                       "        - VariantName: primary\n").replace(
        "    Properties:\n      ProductionVariants:", "    Properties:\n      EndpointConfigName: llm-config\n"
        "      ProductionVariants:") + """\
  Endpoint:
    Type: AWS::SageMaker::Endpoint
    Properties:
      EndpointName: llm-endpoint
      EndpointConfigName: llm-config
  Component:
    Type: AWS::SageMaker::InferenceComponent
    Properties:
      EndpointName: llm-endpoint
      VariantName: primary
      Specification:
        ModelName: !GetAtt LlmModel.ModelName
        ComputeResourceRequirements: {NumberOfAcceleratorDevicesRequired: 2, MinMemoryRequiredInMb: 1024}
      RuntimeConfig: {CopyCount: 3}
"""
    found = adapt(text)
    (component,) = found.deployments
    (role,) = component.roles
    # was: no device, "the endpoint the component is placed on is not made by this template"
    assert (role.accelerators.type.value, role.accelerators.count.value, role.replicas.value) == ("A10G", 2, 3)
    assert not any("not made by this template" in d.message for d in found.diagnostics)


def test_resource_types_are_read_once_not_once_per_variant(monkeypatch):
    # a variant naming its model by the literal ModelName looked every resource's Type up again: quadratic
    from ctxlint.adapters.cfn_values import Template
    lines = ["Resources:"]
    for i in range(60):
        lines += [f"  M{i}:", "    Type: AWS::SageMaker::Model", "    Properties:", f"      ModelName: m{i}",
                  "      PrimaryContainer: {Image: x/djl-inference:0.33.0-lmi15.0.0-cu128, Environment: {HF_MODEL_ID: a/b}}",
                  f"  C{i}:", "    Type: AWS::SageMaker::EndpointConfig", "    Properties:",
                  f"      ProductionVariants: [{{VariantName: v, ModelName: m{i}, InstanceType: ml.g5.2xlarge}}]"]
    calls = []
    real = Template.resource_type
    monkeypatch.setattr(Template, "resource_type", lambda self, name: calls.append(name) or real(self, name))
    found = adapt("\n".join(lines) + "\n")
    assert len(found.deployments) == 60
    assert len(calls) < 10 * 120  # was 60 variants x 120 resources and more


def test_boolean_environment_values_are_their_strings():
    # `OPTION_TRUST_REMOTE_CODE: true` is the env "true", as CloudFormation passes it; it was "set from outside"
    text = LMI.replace("OPTION_ROLLING_BATCH: vllm", "OPTION_ROLLING_BATCH: vllm\n          OPTION_TRUST_REMOTE_CODE: true")
    found = adapt(text)
    (dep,) = found.deployments
    assert not [d for d in found.diagnostics if "OPTION_TRUST_REMOTE_CODE" in d.message]


def test_shadow_variant_runs_its_model_on_its_instances():
    text = LMI.replace("          InstanceType: !Ref Instance\n", "          InstanceType: !Ref Instance\n"
                       "      ShadowProductionVariants:\n        - VariantName: shadow\n"
                       "          ModelName: !GetAtt Shadow.ModelName\n          InitialInstanceCount: 1\n"
                       "          InstanceType: ml.g6e.2xlarge\n") + """\
  Shadow:
    Type: AWS::SageMaker::Model
    Properties:
      PrimaryContainer:
        Image: 763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.33.0-lmi15.0.0-cu128
        Environment: {HF_MODEL_ID: Qwen/Qwen2.5-7B-Instruct, OPTION_MAX_MODEL_LEN: '32768'}
"""
    found = adapt(text)
    shadow = next(d for d in found.deployments if "Shadow" in str(d.name.value) or "shadow" in str(d.name.value))
    (role,) = shadow.roles
    # was: the shadow model had no device ("no EndpointConfig ... runs the model")
    assert str(shadow.name.value) == "LlmConfig/shadow"
    assert (role.accelerators.type.value, role.accelerators.count.value) == ("L40S", 1)


def test_model_named_by_a_sub_of_its_attribute():
    text = LMI.replace("ModelName: !GetAtt LlmModel.ModelName", "ModelName: !Sub '${LlmModel.ModelName}'")
    (dep,) = adapt(text).deployments
    assert str(dep.name.value) == "LlmConfig/primary"  # was: the model on no variant, without a device
    assert dep.roles[0].accelerators.count.value == 4


def test_names_written_as_the_same_sub_join_the_resources():
    # ModelName: !Sub '${AWS::StackName}-llm' on the Model and on the variant: the same name at deploy time
    text = LMI.replace("      ExecutionRoleArn:", "      ModelName: !Sub '${AWS::StackName}-llm'\n      ExecutionRoleArn:").replace(
        "ModelName: !GetAtt LlmModel.ModelName", "ModelName: !Sub '${AWS::StackName}-llm'")
    (dep,) = adapt(text).deployments
    assert str(dep.name.value) == "LlmConfig/primary" and dep.roles[0].accelerators.count.value == 4


def test_a_default_or_mapping_naming_itself_is_unknown_not_a_crash():
    # a Parameter's Default and a Mappings value are literals; `Default: !Ref Instance` in Instance recursed forever
    selfref = LMI.replace("Default: ml.g5.12xlarge", "Default: !Ref Instance")
    (dep,) = adapt(selfref).deployments
    assert dep.roles[0].accelerators.count is None
    selfmap = LMI.replace("InstanceType: !Ref Instance", "InstanceType: !FindInMap [Sizes, prod, instance]") + \
        "Mappings:\n  Sizes:\n    prod: {instance: !FindInMap [Sizes, prod, instance]}\n"
    (dep,) = adapt(selfmap).deployments
    assert dep.roles[0].accelerators.count is None
