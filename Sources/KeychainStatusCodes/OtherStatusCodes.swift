// The rest of Apple's Security result codes (from `SecBase.h`), with Apple's values.
//
// The keychain functions here never return most of them: they belong to certificates, keys,
// trust evaluation and CSSM. They exist because code written for Apple platforms, and the tests
// of the wrappers people use, name them (to map a status to a message or an error case), and
// that code must compile unchanged.
/// `errSecMPSignatureInvalid` (-25327): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMPSignatureInvalid: OSStatus = -25327
/// `errSecOTRTooOld` (-25328): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOTRTooOld: OSStatus = -25328
/// `errSecOTRIDTooNew` (-25329): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOTRIDTooNew: OSStatus = -25329
/// `errSecInvalidCertificate` (-26265): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidCertificate: OSStatus = -26265
/// `errSecNotSigner` (-26267): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNotSigner: OSStatus = -26267
/// `errSecUnsupportedAlgorithm` (-26268): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedAlgorithm: OSStatus = -26268
/// `errSecPolicyDenied` (-26270): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecPolicyDenied: OSStatus = -26270
/// `errSecUnsupportedOperation` (-26271): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedOperation: OSStatus = -26271
/// `errSecUnsupportedPadding` (-26273): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedPadding: OSStatus = -26273
/// `errSecInvalidKey` (-26274): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidKey: OSStatus = -26274
/// `errSecInternal` (-26276): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInternal: OSStatus = -26276
/// `errSecItemInvalidKey` (-34000): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecItemInvalidKey: OSStatus = -34000
/// `errSecItemInvalidKeyType` (-34001): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecItemInvalidKeyType: OSStatus = -34001
/// `errSecItemInvalidValue` (-34002): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecItemInvalidValue: OSStatus = -34002
/// `errSecItemClassMissing` (-34003): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecItemClassMissing: OSStatus = -34003
/// `errSecItemMatchUnsupported` (-34004): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecItemMatchUnsupported: OSStatus = -34004
/// `errSecUseItemListUnsupported` (-34005): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUseItemListUnsupported: OSStatus = -34005
/// `errSecUseKeychainUnsupported` (-34006): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUseKeychainUnsupported: OSStatus = -34006
/// `errSecUseKeychainListUnsupported` (-34007): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUseKeychainListUnsupported: OSStatus = -34007
/// `errSecReturnDataUnsupported` (-34008): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecReturnDataUnsupported: OSStatus = -34008
/// `errSecReturnAttributesUnsupported` (-34009): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecReturnAttributesUnsupported: OSStatus = -34009
/// `errSecReturnRefUnsupported` (-34010): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecReturnRefUnsupported: OSStatus = -34010
/// `errSecReturnPersitentRefUnsupported` (-34011): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecReturnPersitentRefUnsupported: OSStatus = -34011
/// `errSecValueRefUnsupported` (-34012): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecValueRefUnsupported: OSStatus = -34012
/// `errSecValuePersistentRefUnsupported` (-34013): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecValuePersistentRefUnsupported: OSStatus = -34013
/// `errSecReturnMissingPointer` (-34014): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecReturnMissingPointer: OSStatus = -34014
/// `errSecMatchLimitUnsupported` (-34015): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMatchLimitUnsupported: OSStatus = -34015
/// `errSecItemIllegalQuery` (-34016): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecItemIllegalQuery: OSStatus = -34016
/// `errSecWaitForCallback` (-34017): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecWaitForCallback: OSStatus = -34017
/// `errSecUpgradePending` (-34019): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUpgradePending: OSStatus = -34019
/// `errSecServiceNotAvailable` (-67585): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecServiceNotAvailable: OSStatus = -67585
/// `errSecInsufficientClientID` (-67586): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInsufficientClientID: OSStatus = -67586
/// `errSecDeviceReset` (-67587): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecDeviceReset: OSStatus = -67587
/// `errSecDeviceFailed` (-67588): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecDeviceFailed: OSStatus = -67588
/// `errSecAppleAddAppACLSubject` (-67589): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecAppleAddAppACLSubject: OSStatus = -67589
/// `errSecApplePublicKeyIncomplete` (-67590): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecApplePublicKeyIncomplete: OSStatus = -67590
/// `errSecAppleSignatureMismatch` (-67591): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecAppleSignatureMismatch: OSStatus = -67591
/// `errSecAppleInvalidKeyStartDate` (-67592): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecAppleInvalidKeyStartDate: OSStatus = -67592
/// `errSecAppleInvalidKeyEndDate` (-67593): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecAppleInvalidKeyEndDate: OSStatus = -67593
/// `errSecConversionError` (-67594): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecConversionError: OSStatus = -67594
/// `errSecAppleSSLv2Rollback` (-67595): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecAppleSSLv2Rollback: OSStatus = -67595
/// `errSecQuotaExceeded` (-67596): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecQuotaExceeded: OSStatus = -67596
/// `errSecFileTooBig` (-67597): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecFileTooBig: OSStatus = -67597
/// `errSecInvalidDatabaseBlob` (-67598): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidDatabaseBlob: OSStatus = -67598
/// `errSecInvalidKeyBlob` (-67599): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidKeyBlob: OSStatus = -67599
/// `errSecIncompatibleDatabaseBlob` (-67600): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecIncompatibleDatabaseBlob: OSStatus = -67600
/// `errSecIncompatibleKeyBlob` (-67601): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecIncompatibleKeyBlob: OSStatus = -67601
/// `errSecHostNameMismatch` (-67602): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecHostNameMismatch: OSStatus = -67602
/// `errSecUnknownCriticalExtensionFlag` (-67603): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnknownCriticalExtensionFlag: OSStatus = -67603
/// `errSecNoBasicConstraints` (-67604): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNoBasicConstraints: OSStatus = -67604
/// `errSecNoBasicConstraintsCA` (-67605): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNoBasicConstraintsCA: OSStatus = -67605
/// `errSecInvalidAuthorityKeyID` (-67606): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAuthorityKeyID: OSStatus = -67606
/// `errSecInvalidSubjectKeyID` (-67607): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidSubjectKeyID: OSStatus = -67607
/// `errSecInvalidKeyUsageForPolicy` (-67608): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidKeyUsageForPolicy: OSStatus = -67608
/// `errSecInvalidExtendedKeyUsage` (-67609): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidExtendedKeyUsage: OSStatus = -67609
/// `errSecInvalidIDLinkage` (-67610): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidIDLinkage: OSStatus = -67610
/// `errSecPathLengthConstraintExceeded` (-67611): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecPathLengthConstraintExceeded: OSStatus = -67611
/// `errSecInvalidRoot` (-67612): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidRoot: OSStatus = -67612
/// `errSecCRLExpired` (-67613): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCRLExpired: OSStatus = -67613
/// `errSecCRLNotValidYet` (-67614): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCRLNotValidYet: OSStatus = -67614
/// `errSecCRLNotFound` (-67615): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCRLNotFound: OSStatus = -67615
/// `errSecCRLServerDown` (-67616): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCRLServerDown: OSStatus = -67616
/// `errSecCRLBadURI` (-67617): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCRLBadURI: OSStatus = -67617
/// `errSecUnknownCertExtension` (-67618): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnknownCertExtension: OSStatus = -67618
/// `errSecUnknownCRLExtension` (-67619): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnknownCRLExtension: OSStatus = -67619
/// `errSecCRLNotTrusted` (-67620): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCRLNotTrusted: OSStatus = -67620
/// `errSecCRLPolicyFailed` (-67621): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCRLPolicyFailed: OSStatus = -67621
/// `errSecIDPFailure` (-67622): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecIDPFailure: OSStatus = -67622
/// `errSecSMIMEEmailAddressesNotFound` (-67623): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecSMIMEEmailAddressesNotFound: OSStatus = -67623
/// `errSecSMIMEBadExtendedKeyUsage` (-67624): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecSMIMEBadExtendedKeyUsage: OSStatus = -67624
/// `errSecSMIMEBadKeyUsage` (-67625): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecSMIMEBadKeyUsage: OSStatus = -67625
/// `errSecSMIMEKeyUsageNotCritical` (-67626): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecSMIMEKeyUsageNotCritical: OSStatus = -67626
/// `errSecSMIMENoEmailAddress` (-67627): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecSMIMENoEmailAddress: OSStatus = -67627
/// `errSecSMIMESubjAltNameNotCritical` (-67628): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecSMIMESubjAltNameNotCritical: OSStatus = -67628
/// `errSecSSLBadExtendedKeyUsage` (-67629): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecSSLBadExtendedKeyUsage: OSStatus = -67629
/// `errSecOCSPBadResponse` (-67630): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPBadResponse: OSStatus = -67630
/// `errSecOCSPBadRequest` (-67631): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPBadRequest: OSStatus = -67631
/// `errSecOCSPUnavailable` (-67632): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPUnavailable: OSStatus = -67632
/// `errSecOCSPStatusUnrecognized` (-67633): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPStatusUnrecognized: OSStatus = -67633
/// `errSecEndOfData` (-67634): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecEndOfData: OSStatus = -67634
/// `errSecIncompleteCertRevocationCheck` (-67635): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecIncompleteCertRevocationCheck: OSStatus = -67635
/// `errSecNetworkFailure` (-67636): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNetworkFailure: OSStatus = -67636
/// `errSecOCSPNotTrustedToAnchor` (-67637): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPNotTrustedToAnchor: OSStatus = -67637
/// `errSecRecordModified` (-67638): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecRecordModified: OSStatus = -67638
/// `errSecOCSPSignatureError` (-67639): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPSignatureError: OSStatus = -67639
/// `errSecOCSPNoSigner` (-67640): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPNoSigner: OSStatus = -67640
/// `errSecOCSPResponderMalformedReq` (-67641): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPResponderMalformedReq: OSStatus = -67641
/// `errSecOCSPResponderInternalError` (-67642): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPResponderInternalError: OSStatus = -67642
/// `errSecOCSPResponderTryLater` (-67643): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPResponderTryLater: OSStatus = -67643
/// `errSecOCSPResponderSignatureRequired` (-67644): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPResponderSignatureRequired: OSStatus = -67644
/// `errSecOCSPResponderUnauthorized` (-67645): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPResponderUnauthorized: OSStatus = -67645
/// `errSecOCSPResponseNonceMismatch` (-67646): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOCSPResponseNonceMismatch: OSStatus = -67646
/// `errSecCodeSigningBadCertChainLength` (-67647): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCodeSigningBadCertChainLength: OSStatus = -67647
/// `errSecCodeSigningNoBasicConstraints` (-67648): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCodeSigningNoBasicConstraints: OSStatus = -67648
/// `errSecCodeSigningBadPathLengthConstraint` (-67649): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCodeSigningBadPathLengthConstraint: OSStatus = -67649
/// `errSecCodeSigningNoExtendedKeyUsage` (-67650): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCodeSigningNoExtendedKeyUsage: OSStatus = -67650
/// `errSecCodeSigningDevelopment` (-67651): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCodeSigningDevelopment: OSStatus = -67651
/// `errSecResourceSignBadCertChainLength` (-67652): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecResourceSignBadCertChainLength: OSStatus = -67652
/// `errSecResourceSignBadExtKeyUsage` (-67653): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecResourceSignBadExtKeyUsage: OSStatus = -67653
/// `errSecTrustSettingDeny` (-67654): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTrustSettingDeny: OSStatus = -67654
/// `errSecInvalidSubjectName` (-67655): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidSubjectName: OSStatus = -67655
/// `errSecUnknownQualifiedCertStatement` (-67656): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnknownQualifiedCertStatement: OSStatus = -67656
/// `errSecMobileMeRequestQueued` (-67657): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMobileMeRequestQueued: OSStatus = -67657
/// `errSecMobileMeRequestRedirected` (-67658): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMobileMeRequestRedirected: OSStatus = -67658
/// `errSecMobileMeServerError` (-67659): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMobileMeServerError: OSStatus = -67659
/// `errSecMobileMeServerNotAvailable` (-67660): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMobileMeServerNotAvailable: OSStatus = -67660
/// `errSecMobileMeServerAlreadyExists` (-67661): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMobileMeServerAlreadyExists: OSStatus = -67661
/// `errSecMobileMeServerServiceErr` (-67662): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMobileMeServerServiceErr: OSStatus = -67662
/// `errSecMobileMeRequestAlreadyPending` (-67663): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMobileMeRequestAlreadyPending: OSStatus = -67663
/// `errSecMobileMeNoRequestPending` (-67664): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMobileMeNoRequestPending: OSStatus = -67664
/// `errSecMobileMeCSRVerifyFailure` (-67665): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMobileMeCSRVerifyFailure: OSStatus = -67665
/// `errSecMobileMeFailedConsistencyCheck` (-67666): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMobileMeFailedConsistencyCheck: OSStatus = -67666
/// `errSecNotInitialized` (-67667): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNotInitialized: OSStatus = -67667
/// `errSecInvalidHandleUsage` (-67668): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidHandleUsage: OSStatus = -67668
/// `errSecPVCReferentNotFound` (-67669): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecPVCReferentNotFound: OSStatus = -67669
/// `errSecFunctionIntegrityFail` (-67670): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecFunctionIntegrityFail: OSStatus = -67670
/// `errSecInternalError` (-67671): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInternalError: OSStatus = -67671
/// `errSecMemoryError` (-67672): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMemoryError: OSStatus = -67672
/// `errSecInvalidData` (-67673): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidData: OSStatus = -67673
/// `errSecMDSError` (-67674): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMDSError: OSStatus = -67674
/// `errSecInvalidPointer` (-67675): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidPointer: OSStatus = -67675
/// `errSecSelfCheckFailed` (-67676): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecSelfCheckFailed: OSStatus = -67676
/// `errSecFunctionFailed` (-67677): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecFunctionFailed: OSStatus = -67677
/// `errSecModuleManifestVerifyFailed` (-67678): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecModuleManifestVerifyFailed: OSStatus = -67678
/// `errSecInvalidGUID` (-67679): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidGUID: OSStatus = -67679
/// `errSecInvalidHandle` (-67680): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidHandle: OSStatus = -67680
/// `errSecInvalidDBList` (-67681): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidDBList: OSStatus = -67681
/// `errSecInvalidPassthroughID` (-67682): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidPassthroughID: OSStatus = -67682
/// `errSecInvalidNetworkAddress` (-67683): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidNetworkAddress: OSStatus = -67683
/// `errSecCRLAlreadySigned` (-67684): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCRLAlreadySigned: OSStatus = -67684
/// `errSecInvalidNumberOfFields` (-67685): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidNumberOfFields: OSStatus = -67685
/// `errSecVerificationFailure` (-67686): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecVerificationFailure: OSStatus = -67686
/// `errSecUnknownTag` (-67687): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnknownTag: OSStatus = -67687
/// `errSecInvalidSignature` (-67688): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidSignature: OSStatus = -67688
/// `errSecInvalidName` (-67689): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidName: OSStatus = -67689
/// `errSecInvalidCertificateRef` (-67690): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidCertificateRef: OSStatus = -67690
/// `errSecInvalidCertificateGroup` (-67691): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidCertificateGroup: OSStatus = -67691
/// `errSecTagNotFound` (-67692): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTagNotFound: OSStatus = -67692
/// `errSecInvalidQuery` (-67693): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidQuery: OSStatus = -67693
/// `errSecInvalidValue` (-67694): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidValue: OSStatus = -67694
/// `errSecCallbackFailed` (-67695): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCallbackFailed: OSStatus = -67695
/// `errSecACLDeleteFailed` (-67696): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecACLDeleteFailed: OSStatus = -67696
/// `errSecACLReplaceFailed` (-67697): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecACLReplaceFailed: OSStatus = -67697
/// `errSecACLAddFailed` (-67698): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecACLAddFailed: OSStatus = -67698
/// `errSecACLChangeFailed` (-67699): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecACLChangeFailed: OSStatus = -67699
/// `errSecInvalidAccessCredentials` (-67700): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAccessCredentials: OSStatus = -67700
/// `errSecInvalidRecord` (-67701): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidRecord: OSStatus = -67701
/// `errSecInvalidACL` (-67702): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidACL: OSStatus = -67702
/// `errSecInvalidSampleValue` (-67703): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidSampleValue: OSStatus = -67703
/// `errSecIncompatibleVersion` (-67704): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecIncompatibleVersion: OSStatus = -67704
/// `errSecPrivilegeNotGranted` (-67705): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecPrivilegeNotGranted: OSStatus = -67705
/// `errSecInvalidScope` (-67706): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidScope: OSStatus = -67706
/// `errSecPVCAlreadyConfigured` (-67707): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecPVCAlreadyConfigured: OSStatus = -67707
/// `errSecInvalidPVC` (-67708): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidPVC: OSStatus = -67708
/// `errSecEMMLoadFailed` (-67709): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecEMMLoadFailed: OSStatus = -67709
/// `errSecEMMUnloadFailed` (-67710): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecEMMUnloadFailed: OSStatus = -67710
/// `errSecAddinLoadFailed` (-67711): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecAddinLoadFailed: OSStatus = -67711
/// `errSecInvalidKeyRef` (-67712): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidKeyRef: OSStatus = -67712
/// `errSecInvalidKeyHierarchy` (-67713): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidKeyHierarchy: OSStatus = -67713
/// `errSecAddinUnloadFailed` (-67714): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecAddinUnloadFailed: OSStatus = -67714
/// `errSecLibraryReferenceNotFound` (-67715): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecLibraryReferenceNotFound: OSStatus = -67715
/// `errSecInvalidAddinFunctionTable` (-67716): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAddinFunctionTable: OSStatus = -67716
/// `errSecInvalidServiceMask` (-67717): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidServiceMask: OSStatus = -67717
/// `errSecModuleNotLoaded` (-67718): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecModuleNotLoaded: OSStatus = -67718
/// `errSecInvalidSubServiceID` (-67719): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidSubServiceID: OSStatus = -67719
/// `errSecAttributeNotInContext` (-67720): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecAttributeNotInContext: OSStatus = -67720
/// `errSecModuleManagerInitializeFailed` (-67721): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecModuleManagerInitializeFailed: OSStatus = -67721
/// `errSecModuleManagerNotFound` (-67722): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecModuleManagerNotFound: OSStatus = -67722
/// `errSecEventNotificationCallbackNotFound` (-67723): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecEventNotificationCallbackNotFound: OSStatus = -67723
/// `errSecInputLengthError` (-67724): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInputLengthError: OSStatus = -67724
/// `errSecOutputLengthError` (-67725): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecOutputLengthError: OSStatus = -67725
/// `errSecPrivilegeNotSupported` (-67726): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecPrivilegeNotSupported: OSStatus = -67726
/// `errSecDeviceError` (-67727): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecDeviceError: OSStatus = -67727
/// `errSecAttachHandleBusy` (-67728): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecAttachHandleBusy: OSStatus = -67728
/// `errSecNotLoggedIn` (-67729): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNotLoggedIn: OSStatus = -67729
/// `errSecAlgorithmMismatch` (-67730): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecAlgorithmMismatch: OSStatus = -67730
/// `errSecKeyUsageIncorrect` (-67731): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecKeyUsageIncorrect: OSStatus = -67731
/// `errSecKeyBlobTypeIncorrect` (-67732): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecKeyBlobTypeIncorrect: OSStatus = -67732
/// `errSecKeyHeaderInconsistent` (-67733): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecKeyHeaderInconsistent: OSStatus = -67733
/// `errSecUnsupportedKeyFormat` (-67734): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedKeyFormat: OSStatus = -67734
/// `errSecUnsupportedKeySize` (-67735): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedKeySize: OSStatus = -67735
/// `errSecInvalidKeyUsageMask` (-67736): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidKeyUsageMask: OSStatus = -67736
/// `errSecUnsupportedKeyUsageMask` (-67737): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedKeyUsageMask: OSStatus = -67737
/// `errSecInvalidKeyAttributeMask` (-67738): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidKeyAttributeMask: OSStatus = -67738
/// `errSecUnsupportedKeyAttributeMask` (-67739): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedKeyAttributeMask: OSStatus = -67739
/// `errSecInvalidKeyLabel` (-67740): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidKeyLabel: OSStatus = -67740
/// `errSecUnsupportedKeyLabel` (-67741): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedKeyLabel: OSStatus = -67741
/// `errSecInvalidKeyFormat` (-67742): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidKeyFormat: OSStatus = -67742
/// `errSecUnsupportedVectorOfBuffers` (-67743): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedVectorOfBuffers: OSStatus = -67743
/// `errSecInvalidInputVector` (-67744): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidInputVector: OSStatus = -67744
/// `errSecInvalidOutputVector` (-67745): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidOutputVector: OSStatus = -67745
/// `errSecInvalidContext` (-67746): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidContext: OSStatus = -67746
/// `errSecInvalidAlgorithm` (-67747): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAlgorithm: OSStatus = -67747
/// `errSecInvalidAttributeKey` (-67748): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeKey: OSStatus = -67748
/// `errSecMissingAttributeKey` (-67749): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeKey: OSStatus = -67749
/// `errSecInvalidAttributeInitVector` (-67750): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeInitVector: OSStatus = -67750
/// `errSecMissingAttributeInitVector` (-67751): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeInitVector: OSStatus = -67751
/// `errSecInvalidAttributeSalt` (-67752): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeSalt: OSStatus = -67752
/// `errSecMissingAttributeSalt` (-67753): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeSalt: OSStatus = -67753
/// `errSecInvalidAttributePadding` (-67754): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributePadding: OSStatus = -67754
/// `errSecMissingAttributePadding` (-67755): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributePadding: OSStatus = -67755
/// `errSecInvalidAttributeRandom` (-67756): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeRandom: OSStatus = -67756
/// `errSecMissingAttributeRandom` (-67757): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeRandom: OSStatus = -67757
/// `errSecInvalidAttributeSeed` (-67758): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeSeed: OSStatus = -67758
/// `errSecMissingAttributeSeed` (-67759): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeSeed: OSStatus = -67759
/// `errSecInvalidAttributePassphrase` (-67760): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributePassphrase: OSStatus = -67760
/// `errSecMissingAttributePassphrase` (-67761): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributePassphrase: OSStatus = -67761
/// `errSecInvalidAttributeKeyLength` (-67762): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeKeyLength: OSStatus = -67762
/// `errSecMissingAttributeKeyLength` (-67763): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeKeyLength: OSStatus = -67763
/// `errSecInvalidAttributeBlockSize` (-67764): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeBlockSize: OSStatus = -67764
/// `errSecMissingAttributeBlockSize` (-67765): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeBlockSize: OSStatus = -67765
/// `errSecInvalidAttributeOutputSize` (-67766): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeOutputSize: OSStatus = -67766
/// `errSecMissingAttributeOutputSize` (-67767): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeOutputSize: OSStatus = -67767
/// `errSecInvalidAttributeRounds` (-67768): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeRounds: OSStatus = -67768
/// `errSecMissingAttributeRounds` (-67769): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeRounds: OSStatus = -67769
/// `errSecInvalidAlgorithmParms` (-67770): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAlgorithmParms: OSStatus = -67770
/// `errSecMissingAlgorithmParms` (-67771): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAlgorithmParms: OSStatus = -67771
/// `errSecInvalidAttributeLabel` (-67772): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeLabel: OSStatus = -67772
/// `errSecMissingAttributeLabel` (-67773): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeLabel: OSStatus = -67773
/// `errSecInvalidAttributeKeyType` (-67774): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeKeyType: OSStatus = -67774
/// `errSecMissingAttributeKeyType` (-67775): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeKeyType: OSStatus = -67775
/// `errSecInvalidAttributeMode` (-67776): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeMode: OSStatus = -67776
/// `errSecMissingAttributeMode` (-67777): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeMode: OSStatus = -67777
/// `errSecInvalidAttributeEffectiveBits` (-67778): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeEffectiveBits: OSStatus = -67778
/// `errSecMissingAttributeEffectiveBits` (-67779): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeEffectiveBits: OSStatus = -67779
/// `errSecInvalidAttributeStartDate` (-67780): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeStartDate: OSStatus = -67780
/// `errSecMissingAttributeStartDate` (-67781): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeStartDate: OSStatus = -67781
/// `errSecInvalidAttributeEndDate` (-67782): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeEndDate: OSStatus = -67782
/// `errSecMissingAttributeEndDate` (-67783): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeEndDate: OSStatus = -67783
/// `errSecInvalidAttributeVersion` (-67784): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeVersion: OSStatus = -67784
/// `errSecMissingAttributeVersion` (-67785): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeVersion: OSStatus = -67785
/// `errSecInvalidAttributePrime` (-67786): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributePrime: OSStatus = -67786
/// `errSecMissingAttributePrime` (-67787): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributePrime: OSStatus = -67787
/// `errSecInvalidAttributeBase` (-67788): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeBase: OSStatus = -67788
/// `errSecMissingAttributeBase` (-67789): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeBase: OSStatus = -67789
/// `errSecInvalidAttributeSubprime` (-67790): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeSubprime: OSStatus = -67790
/// `errSecMissingAttributeSubprime` (-67791): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeSubprime: OSStatus = -67791
/// `errSecInvalidAttributeIterationCount` (-67792): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeIterationCount: OSStatus = -67792
/// `errSecMissingAttributeIterationCount` (-67793): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeIterationCount: OSStatus = -67793
/// `errSecInvalidAttributeDLDBHandle` (-67794): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeDLDBHandle: OSStatus = -67794
/// `errSecMissingAttributeDLDBHandle` (-67795): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeDLDBHandle: OSStatus = -67795
/// `errSecInvalidAttributeAccessCredentials` (-67796): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeAccessCredentials: OSStatus = -67796
/// `errSecMissingAttributeAccessCredentials` (-67797): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeAccessCredentials: OSStatus = -67797
/// `errSecInvalidAttributePublicKeyFormat` (-67798): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributePublicKeyFormat: OSStatus = -67798
/// `errSecMissingAttributePublicKeyFormat` (-67799): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributePublicKeyFormat: OSStatus = -67799
/// `errSecInvalidAttributePrivateKeyFormat` (-67800): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributePrivateKeyFormat: OSStatus = -67800
/// `errSecMissingAttributePrivateKeyFormat` (-67801): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributePrivateKeyFormat: OSStatus = -67801
/// `errSecInvalidAttributeSymmetricKeyFormat` (-67802): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeSymmetricKeyFormat: OSStatus = -67802
/// `errSecMissingAttributeSymmetricKeyFormat` (-67803): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeSymmetricKeyFormat: OSStatus = -67803
/// `errSecInvalidAttributeWrappedKeyFormat` (-67804): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAttributeWrappedKeyFormat: OSStatus = -67804
/// `errSecMissingAttributeWrappedKeyFormat` (-67805): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingAttributeWrappedKeyFormat: OSStatus = -67805
/// `errSecStagedOperationInProgress` (-67806): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecStagedOperationInProgress: OSStatus = -67806
/// `errSecStagedOperationNotStarted` (-67807): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecStagedOperationNotStarted: OSStatus = -67807
/// `errSecVerifyFailed` (-67808): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecVerifyFailed: OSStatus = -67808
/// `errSecQuerySizeUnknown` (-67809): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecQuerySizeUnknown: OSStatus = -67809
/// `errSecBlockSizeMismatch` (-67810): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecBlockSizeMismatch: OSStatus = -67810
/// `errSecPublicKeyInconsistent` (-67811): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecPublicKeyInconsistent: OSStatus = -67811
/// `errSecDeviceVerifyFailed` (-67812): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecDeviceVerifyFailed: OSStatus = -67812
/// `errSecInvalidLoginName` (-67813): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidLoginName: OSStatus = -67813
/// `errSecAlreadyLoggedIn` (-67814): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecAlreadyLoggedIn: OSStatus = -67814
/// `errSecInvalidDigestAlgorithm` (-67815): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidDigestAlgorithm: OSStatus = -67815
/// `errSecInvalidCRLGroup` (-67816): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidCRLGroup: OSStatus = -67816
/// `errSecCertificateCannotOperate` (-67817): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCertificateCannotOperate: OSStatus = -67817
/// `errSecCertificateExpired` (-67818): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCertificateExpired: OSStatus = -67818
/// `errSecCertificateNotValidYet` (-67819): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCertificateNotValidYet: OSStatus = -67819
/// `errSecCertificateRevoked` (-67820): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCertificateRevoked: OSStatus = -67820
/// `errSecCertificateSuspended` (-67821): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCertificateSuspended: OSStatus = -67821
/// `errSecInsufficientCredentials` (-67822): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInsufficientCredentials: OSStatus = -67822
/// `errSecInvalidAction` (-67823): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAction: OSStatus = -67823
/// `errSecInvalidAuthority` (-67824): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAuthority: OSStatus = -67824
/// `errSecVerifyActionFailed` (-67825): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecVerifyActionFailed: OSStatus = -67825
/// `errSecInvalidCertAuthority` (-67826): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidCertAuthority: OSStatus = -67826
/// `errSecInvaldCRLAuthority` (-67827): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvaldCRLAuthority: OSStatus = -67827
/// `errSecInvalidCRLEncoding` (-67828): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidCRLEncoding: OSStatus = -67828
/// `errSecInvalidCRLType` (-67829): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidCRLType: OSStatus = -67829
/// `errSecInvalidCRL` (-67830): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidCRL: OSStatus = -67830
/// `errSecInvalidFormType` (-67831): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidFormType: OSStatus = -67831
/// `errSecInvalidID` (-67832): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidID: OSStatus = -67832
/// `errSecInvalidIdentifier` (-67833): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidIdentifier: OSStatus = -67833
/// `errSecInvalidIndex` (-67834): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidIndex: OSStatus = -67834
/// `errSecInvalidPolicyIdentifiers` (-67835): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidPolicyIdentifiers: OSStatus = -67835
/// `errSecInvalidTimeString` (-67836): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidTimeString: OSStatus = -67836
/// `errSecInvalidReason` (-67837): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidReason: OSStatus = -67837
/// `errSecInvalidRequestInputs` (-67838): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidRequestInputs: OSStatus = -67838
/// `errSecInvalidResponseVector` (-67839): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidResponseVector: OSStatus = -67839
/// `errSecInvalidStopOnPolicy` (-67840): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidStopOnPolicy: OSStatus = -67840
/// `errSecInvalidTuple` (-67841): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidTuple: OSStatus = -67841
/// `errSecMultipleValuesUnsupported` (-67842): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMultipleValuesUnsupported: OSStatus = -67842
/// `errSecNotTrusted` (-67843): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNotTrusted: OSStatus = -67843
/// `errSecNoDefaultAuthority` (-67844): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNoDefaultAuthority: OSStatus = -67844
/// `errSecRejectedForm` (-67845): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecRejectedForm: OSStatus = -67845
/// `errSecRequestLost` (-67846): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecRequestLost: OSStatus = -67846
/// `errSecRequestRejected` (-67847): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecRequestRejected: OSStatus = -67847
/// `errSecUnsupportedAddressType` (-67848): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedAddressType: OSStatus = -67848
/// `errSecUnsupportedService` (-67849): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedService: OSStatus = -67849
/// `errSecInvalidTupleGroup` (-67850): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidTupleGroup: OSStatus = -67850
/// `errSecInvalidBaseACLs` (-67851): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidBaseACLs: OSStatus = -67851
/// `errSecInvalidTupleCredendtials` (-67852): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidTupleCredendtials: OSStatus = -67852
/// `errSecInvalidEncoding` (-67853): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidEncoding: OSStatus = -67853
/// `errSecInvalidValidityPeriod` (-67854): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidValidityPeriod: OSStatus = -67854
/// `errSecInvalidRequestor` (-67855): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidRequestor: OSStatus = -67855
/// `errSecRequestDescriptor` (-67856): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecRequestDescriptor: OSStatus = -67856
/// `errSecInvalidBundleInfo` (-67857): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidBundleInfo: OSStatus = -67857
/// `errSecInvalidCRLIndex` (-67858): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidCRLIndex: OSStatus = -67858
/// `errSecNoFieldValues` (-67859): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNoFieldValues: OSStatus = -67859
/// `errSecUnsupportedFieldFormat` (-67860): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedFieldFormat: OSStatus = -67860
/// `errSecUnsupportedIndexInfo` (-67861): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedIndexInfo: OSStatus = -67861
/// `errSecUnsupportedLocality` (-67862): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedLocality: OSStatus = -67862
/// `errSecUnsupportedNumAttributes` (-67863): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedNumAttributes: OSStatus = -67863
/// `errSecUnsupportedNumIndexes` (-67864): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedNumIndexes: OSStatus = -67864
/// `errSecUnsupportedNumRecordTypes` (-67865): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedNumRecordTypes: OSStatus = -67865
/// `errSecFieldSpecifiedMultiple` (-67866): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecFieldSpecifiedMultiple: OSStatus = -67866
/// `errSecIncompatibleFieldFormat` (-67867): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecIncompatibleFieldFormat: OSStatus = -67867
/// `errSecInvalidParsingModule` (-67868): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidParsingModule: OSStatus = -67868
/// `errSecDatabaseLocked` (-67869): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecDatabaseLocked: OSStatus = -67869
/// `errSecDatastoreIsOpen` (-67870): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecDatastoreIsOpen: OSStatus = -67870
/// `errSecMissingValue` (-67871): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingValue: OSStatus = -67871
/// `errSecUnsupportedQueryLimits` (-67872): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedQueryLimits: OSStatus = -67872
/// `errSecUnsupportedNumSelectionPreds` (-67873): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedNumSelectionPreds: OSStatus = -67873
/// `errSecUnsupportedOperator` (-67874): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecUnsupportedOperator: OSStatus = -67874
/// `errSecInvalidDBLocation` (-67875): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidDBLocation: OSStatus = -67875
/// `errSecInvalidAccessRequest` (-67876): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidAccessRequest: OSStatus = -67876
/// `errSecInvalidIndexInfo` (-67877): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidIndexInfo: OSStatus = -67877
/// `errSecInvalidNewOwner` (-67878): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidNewOwner: OSStatus = -67878
/// `errSecInvalidModifyMode` (-67879): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidModifyMode: OSStatus = -67879
/// `errSecMissingRequiredExtension` (-67880): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMissingRequiredExtension: OSStatus = -67880
/// `errSecExtendedKeyUsageNotCritical` (-67881): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecExtendedKeyUsageNotCritical: OSStatus = -67881
/// `errSecTimestampMissing` (-67882): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampMissing: OSStatus = -67882
/// `errSecTimestampInvalid` (-67883): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampInvalid: OSStatus = -67883
/// `errSecTimestampNotTrusted` (-67884): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampNotTrusted: OSStatus = -67884
/// `errSecTimestampServiceNotAvailable` (-67885): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampServiceNotAvailable: OSStatus = -67885
/// `errSecTimestampBadAlg` (-67886): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampBadAlg: OSStatus = -67886
/// `errSecTimestampBadRequest` (-67887): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampBadRequest: OSStatus = -67887
/// `errSecTimestampBadDataFormat` (-67888): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampBadDataFormat: OSStatus = -67888
/// `errSecTimestampTimeNotAvailable` (-67889): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampTimeNotAvailable: OSStatus = -67889
/// `errSecTimestampUnacceptedPolicy` (-67890): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampUnacceptedPolicy: OSStatus = -67890
/// `errSecTimestampUnacceptedExtension` (-67891): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampUnacceptedExtension: OSStatus = -67891
/// `errSecTimestampAddInfoNotAvailable` (-67892): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampAddInfoNotAvailable: OSStatus = -67892
/// `errSecTimestampSystemFailure` (-67893): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampSystemFailure: OSStatus = -67893
/// `errSecSigningTimeMissing` (-67894): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecSigningTimeMissing: OSStatus = -67894
/// `errSecTimestampRejection` (-67895): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampRejection: OSStatus = -67895
/// `errSecTimestampWaiting` (-67896): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampWaiting: OSStatus = -67896
/// `errSecTimestampRevocationWarning` (-67897): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampRevocationWarning: OSStatus = -67897
/// `errSecTimestampRevocationNotification` (-67898): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTimestampRevocationNotification: OSStatus = -67898
